# workbook_add_lab(<folder> <base>)
#
# A lab lives in labs/<folder>/ with <base>.cuh (its contract), <base>.cu (the
# student's file), README.md (the handout) and tests/*.cu; its reference
# solution is solutions/<folder>/<base>.cu. For lab "NN-name" this makes:
#   labNN_student, labNN_solution            the two implementations (static libs)
#   labNN_tests_student, labNN_tests_solution   the same tests linked to each
#   labNN_experiment[_solution]              when labs/<folder>/experiment.cu exists
#   labNN_experiment_reference               when solutions/<folder>/experiment_reference.cu exists
#                                            and the solution is built: the comparisons that are
#                                            near-answers to the lab's TODOs, kept out of labs/
# Only the solution tests are registered with CTest (the project's own suite);
# the grader runs the student tests.
get_filename_component(WORKBOOK_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
# Where the student files come from: this tree, or a staged submission
# (./workbook grade --submission) laid out as labs/<folder>/<base>.cu. Only the
# student files come from there: contracts, tests, harness and rubric are this tree's.
set(WORKBOOK_STUDENT_ROOT "${WORKBOOK_ROOT}" CACHE PATH "The tree whose labs/<folder>/<base>.cu are the student files")
# Instructor mode (./workbook grade --submission) compiles the student files in
# a sandbox: tools/sandboxed_compile.sh, as the compiler launcher of the
# labNN_student targets.
option(WORKBOOK_SANDBOX_COMPILE "Compile the student files in a bubblewrap sandbox" OFF)

# How ctest runs a lab's correctness tests. On a machine with a GPU: in
# WORKBOOK_TEST_SHARDS processes per lab (GoogleTest's sharding), so that the
# CUDA start-up is paid a few times per lab instead of once per test and a few
# processes share the GPU; measured on an H100, one process per test in
# parallel spent most of its time starting CUDA contexts and switching between
# them. Without a GPU (CI): 0, one ctest entry per test, so each GPU test is
# reported skipped with its reason and each host-only test passes or fails on
# its own.
if(NOT DEFINED WORKBOOK_TEST_SHARDS)
  set(shards 0)
  find_program(WORKBOOK_NVIDIA_SMI nvidia-smi)
  if(WORKBOOK_NVIDIA_SMI)
    execute_process(COMMAND ${WORKBOOK_NVIDIA_SMI} -L RESULT_VARIABLE rc OUTPUT_VARIABLE gpus ERROR_QUIET)
    if(rc EQUAL 0 AND gpus MATCHES "GPU 0")
      set(shards 8)
    endif()
  endif()
  set(WORKBOOK_TEST_SHARDS ${shards} CACHE STRING
      "Processes per lab for ctest's correctness tests (0: one ctest entry per test)")
endif()

function(workbook_add_lab folder base)
  string(REGEX MATCH "^[0-9][0-9]" number "${folder}")
  if(number STREQUAL "")
    message(FATAL_ERROR "workbook_add_lab: lab folder '${folder}' must start with a two-digit number")
  endif()
  set(lab_dir ${WORKBOOK_ROOT}/labs/${folder})
  set(solution_dir ${WORKBOOK_ROOT}/solutions/${folder})
  set(prefix lab${number})
  foreach(required ${base}.cuh ${base}.cu README.md)
    if(NOT EXISTS ${lab_dir}/${required})
      message(FATAL_ERROR "workbook_add_lab: labs/${folder}/${required} is missing")
    endif()
  endforeach()

  set(variants student)
  set(source_student ${WORKBOOK_STUDENT_ROOT}/labs/${folder}/${base}.cu)
  if(NOT EXISTS ${source_student})
    message(FATAL_ERROR "workbook_add_lab: ${source_student} is missing (WORKBOOK_STUDENT_ROOT=${WORKBOOK_STUDENT_ROOT})")
  endif()
  if(WORKBOOK_BUILD_SOLUTIONS AND EXISTS ${solution_dir}/${base}.cu)
    list(APPEND variants solution)
    set(source_solution ${solution_dir}/${base}.cu)
  endif()

  file(GLOB test_sources CONFIGURE_DEPENDS ${lab_dir}/tests/*.cu ${lab_dir}/tests/*.cpp)
  if(NOT test_sources)
    message(FATAL_ERROR "workbook_add_lab: labs/${folder}/tests/ has no test sources")
  endif()
  # The tests are compiled once and linked against each implementation.
  add_library(${prefix}_test_objects OBJECT ${test_sources})
  target_include_directories(${prefix}_test_objects PRIVATE ${lab_dir})
  target_link_libraries(${prefix}_test_objects PRIVATE workbook::testing)
  target_compile_definitions(${prefix}_test_objects PRIVATE WORKBOOK_LAB_ID="${folder}")
  workbook_set_warnings(${prefix}_test_objects)

  workbook_host_optimization(${prefix}_test_objects 2)
  # The experiment too is compiled once and linked against each implementation:
  # compiling it per variant cost 77 CPU-seconds of the 513 that the compiles took (g++ 12, nvcc 13.0, 2026-11-26).
  if(EXISTS ${lab_dir}/experiment.cu)
    add_library(${prefix}_experiment_objects OBJECT ${lab_dir}/experiment.cu)
    target_include_directories(${prefix}_experiment_objects PRIVATE ${lab_dir})
    target_link_libraries(${prefix}_experiment_objects PRIVATE workbook::common)
    workbook_set_warnings(${prefix}_experiment_objects)
  endif()

  foreach(variant ${variants})
    add_library(${prefix}_${variant} STATIC ${source_${variant}})
    if(variant STREQUAL "student" AND WORKBOOK_SANDBOX_COMPILE)
      set_target_properties(${prefix}_${variant} PROPERTIES CUDA_COMPILER_LAUNCHER
        "${WORKBOOK_ROOT}/tools/sandboxed_compile.sh;${WORKBOOK_ROOT};${CMAKE_BINARY_DIR}")
    endif()
    target_include_directories(${prefix}_${variant} PUBLIC ${lab_dir})
    target_link_libraries(${prefix}_${variant} PUBLIC workbook::common)
    if(variant STREQUAL "solution")
      workbook_set_warnings(${prefix}_${variant})
    else()
      # Student code gets the warnings but never fails the build on them:
      # an untouched skeleton has unused parameters by design.
      target_compile_options(${prefix}_${variant} PRIVATE
        $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall>)
    endif()

    add_executable(${prefix}_tests_${variant} $<TARGET_OBJECTS:${prefix}_test_objects>)
    target_link_libraries(${prefix}_tests_${variant} PRIVATE ${prefix}_${variant} workbook::testing)
    set_target_properties(${prefix}_tests_${variant} PROPERTIES CUDA_RESOLVE_DEVICE_SYMBOLS ON)

    if(EXISTS ${lab_dir}/experiment.cu)
      if(variant STREQUAL "student")
        set(experiment ${prefix}_experiment)
      else()
        set(experiment ${prefix}_experiment_solution)
      endif()
      add_executable(${experiment} $<TARGET_OBJECTS:${prefix}_experiment_objects>)
      target_link_libraries(${experiment} PRIVATE ${prefix}_${variant})
    endif()
  endforeach()

  # Comparison kernels that would answer a TODO (the tiled transpose less its
  # padding, a copy of the grid-stride sum) live beside the solution, not in the
  # student's folder: a program of their own, linked with the solution, that
  # ./workbook bench runs after the reference's experiment. A tree without
  # solutions/ (the student release) has no such target.
  # A Going-further reference (solutions/<folder>/going_further/: lab 08's
  # Onesweep sort): a library of its own, tested by its *_test.cu files (in
  # the project's suite, not the grader's), linked into the comparisons so
  # that ./workbook bench LAB --solution times it. Not a student file: the
  # student release has no solutions/.
  set(further_dir ${solution_dir}/going_further)
  if(TARGET ${prefix}_solution AND IS_DIRECTORY ${further_dir})
    file(GLOB further_sources CONFIGURE_DEPENDS ${further_dir}/*.cu)
    file(GLOB further_tests CONFIGURE_DEPENDS ${further_dir}/*_test.cu)
    list(REMOVE_ITEM further_sources ${further_tests})
    add_library(${prefix}_going_further STATIC ${further_sources})
    target_include_directories(${prefix}_going_further PUBLIC ${further_dir} ${lab_dir})
    target_link_libraries(${prefix}_going_further PUBLIC workbook::common)
    workbook_set_warnings(${prefix}_going_further)
    if(further_tests)
      add_executable(${prefix}_going_further_tests ${further_tests})
      target_link_libraries(${prefix}_going_further_tests PRIVATE ${prefix}_going_further workbook::testing)
      target_compile_definitions(${prefix}_going_further_tests PRIVATE WORKBOOK_LAB_ID="${folder}")
      workbook_set_warnings(${prefix}_going_further_tests)
      workbook_register_lab_tests(${folder}.going-further ${prefix}_going_further_tests)
    endif()
  endif()

  if(TARGET ${prefix}_solution AND EXISTS ${solution_dir}/experiment_reference.cu)
    add_executable(${prefix}_experiment_reference ${solution_dir}/experiment_reference.cu)
    target_include_directories(${prefix}_experiment_reference PRIVATE ${lab_dir})
    target_link_libraries(${prefix}_experiment_reference PRIVATE ${prefix}_solution)
    if(TARGET ${prefix}_going_further)
      target_link_libraries(${prefix}_experiment_reference PRIVATE ${prefix}_going_further)
    endif()
    workbook_set_warnings(${prefix}_experiment_reference)
  endif()

  if(TARGET ${prefix}_tests_solution)
    workbook_register_lab_tests(${folder} ${prefix}_tests_solution)
  endif()

  # Remember the lab for the grader's manifest.
  set(entry "{\"id\": \"${folder}\", \"base\": \"${base}\"")
  string(APPEND entry ", \"student_tests\": \"$<TARGET_FILE:${prefix}_tests_student>\"")
  # The compiled files, whose calls the grader lists (grader/README.md, "The calls of the compiled file").
  string(APPEND entry ", \"student_library\": \"$<TARGET_FILE:${prefix}_student>\"")
  if(TARGET ${prefix}_tests_solution)
    string(APPEND entry ", \"solution_tests\": \"$<TARGET_FILE:${prefix}_tests_solution>\"")
  endif()
  if(TARGET ${prefix}_solution)
    string(APPEND entry ", \"solution_library\": \"$<TARGET_FILE:${prefix}_solution>\"")
  endif()
  if(TARGET ${prefix}_experiment)
    string(APPEND entry ", \"student_experiment\": \"$<TARGET_FILE:${prefix}_experiment>\"")
  endif()
  if(TARGET ${prefix}_experiment_solution)
    string(APPEND entry ", \"solution_experiment\": \"$<TARGET_FILE:${prefix}_experiment_solution>\"")
  endif()
  if(TARGET ${prefix}_experiment_reference)
    string(APPEND entry ", \"solution_comparisons\": \"$<TARGET_FILE:${prefix}_experiment_reference>\"")
  endif()
  string(APPEND entry "}")
  set_property(GLOBAL APPEND PROPERTY WORKBOOK_LAB_ENTRIES "${entry}")
endfunction()

# Writes <build>/workbook-labs.json: every lab with the paths of its test
# binaries, read by the grader and by ./workbook.
function(workbook_write_lab_manifest)
  get_property(entries GLOBAL PROPERTY WORKBOOK_LAB_ENTRIES)
  list(JOIN entries ",\n    " body)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/workbook-labs.json CONTENT
"{
  \"source_dir\": \"${WORKBOOK_ROOT}\",
  \"student_root\": \"${WORKBOOK_STUDENT_ROOT}\",
  \"rubric\": \"${WORKBOOK_ROOT}/grader/rubric.json\",
  \"labs\": [
    ${body}
  ]
}
")
endfunction()

# The solution tests of one lab in CTest. Correctness tests run in parallel
# (`ctest -j`); speed tests (suites named *Speed) run alone (RUN_SERIAL), so
# that nothing shares the GPU while they time it. One label each (`ctest -L
# gpu`, `ctest -L speed`): a list here would be read as property names.
function(workbook_register_lab_tests folder target)
  set(skip "workbook-skip:")
  if(WORKBOOK_TEST_SHARDS GREATER 0)
    math(EXPR last "${WORKBOOK_TEST_SHARDS} - 1")
    foreach(shard RANGE ${last})
      set(name "${folder}.shard-${shard}-of-${WORKBOOK_TEST_SHARDS}")
      add_test(NAME ${name} COMMAND ${target} "--gtest_filter=-*Speed.*")
      set_tests_properties(${name} PROPERTIES
        ENVIRONMENT "GTEST_TOTAL_SHARDS=${WORKBOOK_TEST_SHARDS};GTEST_SHARD_INDEX=${shard}"
        LABELS gpu TIMEOUT 300 COST 20 SKIP_REGULAR_EXPRESSION "${skip}")
    endforeach()
    # A lab without speed tests gets no speed entry (it would pass running nothing).
    file(GLOB sources ${WORKBOOK_ROOT}/labs/${folder}/tests/*.cu)
    set(speed_tests "")
    foreach(source ${sources})
      file(STRINGS ${source} found REGEX "TEST(_F|_P)?\\([A-Za-z0-9_]*Speed,")
      list(APPEND speed_tests ${found})
    endforeach()
    if(speed_tests)
      add_test(NAME ${folder}.speed COMMAND ${target} "--gtest_filter=*Speed.*")
      set_tests_properties(${folder}.speed PROPERTIES LABELS speed RUN_SERIAL TRUE TIMEOUT 300
                                                      SKIP_REGULAR_EXPRESSION "${skip}")
    endif()
    return()
  endif()
  gtest_discover_tests(${target}
    TEST_PREFIX "${folder}."
    TEST_FILTER "-*Speed.*"
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS gpu TIMEOUT 300 SKIP_REGULAR_EXPRESSION "${skip}")
  gtest_discover_tests(${target}
    TEST_PREFIX "${folder}."
    TEST_FILTER "*Speed.*"
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS speed RUN_SERIAL TRUE TIMEOUT 300 SKIP_REGULAR_EXPRESSION "${skip}")
endfunction()
