// Tests of the calls of the compiled file (call_checks.hpp): tiny C++ files
// compiled with the host compiler whose forbidden calls hide behind a macro,
// an alias or a template are refused, honest ones are not, nm's lines are
// read, and every real lab library of the build passes. No GPU needed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "call_checks.hpp"
#include "host_compiler.hpp"
#include "manifest.hpp"
#include "process.hpp"
#include "source_checks.hpp"
#include "source_tree.hpp"

namespace workbook::grader {
namespace {

namespace fs = std::filesystem;
using test_tree::compile_object;
using test_tree::read_text;
using test_tree::source_tree;

const char* const kFile = "labs/08-radix-sort/radix_sort.cu";

/// The reason of the forbidden_everywhere() group that lists @p name.
std::string why_of(const std::string& name) {
  for (const ForbiddenGroup& group : forbidden_everywhere()) {
    for (const std::string& listed : group.names) {
      if (listed == name) return group.why;
    }
  }
  ADD_FAILURE() << "no group lists " << name;
  return "";
}

class CompiledCalls : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/grader-calls-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    if (find_on_path("nm").empty()) GTEST_SKIP() << "no nm on PATH (binutils)";
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  /// The object compiled from @p source (a test failure when it does not compile).
  std::string compiled(const std::string& name, const std::string& source) {
    std::string object;
    const std::string error = compile_object(dir_, name, source, object);
    EXPECT_EQ(error, "");
    return object;
  }

  /// The stage on @p object as the student's file.
  CallCheck check(const std::string& object) {
    return check_compiled_calls(object, kFile, false, dir_.string());
  }

  fs::path dir_;
};

const char* const kHeader =
    "labs/08-radix-sort/radix_sort.cu calls what no student file may call, so the lab scores 0 and its "
    "tests were not run. Remove what calls each of these and grade again:\n";

TEST_F(CompiledCalls, StdAsyncBehindAMacroAndATemplateIsRefused) {
  const std::string object =
      compiled("async",
               "#include <future>\n"
               "template <class F> auto go(F f) { return std::async(std::launch::async, "
               "f); }\n"
               "#define IN_THE_BACKGROUND(f) go(f)\n"
               "int work() { return 1; }\n"
               "int launch_sort() { return IN_THE_BACKGROUND(work).get(); }\n");
  const CallCheck result = check(object);
  EXPECT_EQ(result.note, "");
  EXPECT_EQ(result.refusal, std::string(kHeader) +
                                "- labs/08-radix-sort/radix_sort.cu calls std::thread::_M_start_thread (it "
                                "starts a thread: std::thread, std::jthread and std::async call it). " +
                                why_of("jthread"));
}

TEST_F(CompiledCalls, AThreadTypeUnderAnotherNameIsRefused) {
  // The alias could sit in any header that the file includes.
  const std::string object = compiled("alias",
                                      "#include <thread>\n"
                                      "using Helper = std::thread;\n"
                                      "void launch_sort() { Helper h([] {}); h.detach(); }\n");
  EXPECT_NE(check(object).refusal.find("calls std::thread::_M_start_thread (it starts a thread"),
            std::string::npos);
}

TEST_F(CompiledCalls, PthreadCreateThroughAFunctionPointerIsRefused) {
  const std::string object =
      compiled("pthread",
               "#include <pthread.h>\n"
               "using Starter = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), "
               "void*);\n"
               "Starter volatile start = &pthread_create;\n"
               "void* spin(void*) { return nullptr; }\n"
               "int launch_sort() { pthread_t t; return start(&t, nullptr, spin, nullptr); "
               "}\n");
  EXPECT_EQ(check(object).refusal, std::string(kHeader) +
                                       "- labs/08-radix-sort/radix_sort.cu calls pthread_create (it starts a "
                                       "thread). " +
                                       why_of("pthread_create"));
}

TEST_F(CompiledCalls, CudaCallsUnderTheirHeadersNamesAndDeviceSettingsAreRefused) {
  // What cuda_runtime_api.h makes of cudaLaunchHostFunc with per-thread
  // default streams, and of cuGetProcAddress; no CUDA headers needed.
  const std::string object =
      compiled("cuda",
               "extern \"C\" int cudaLaunchHostFunc_ptsz(void*, void (*)(void*), void*);\n"
               "extern \"C\" int cuGetProcAddress_v2(const char*, void**, int, "
               "unsigned long long, void*);\n"
               "extern \"C\" int cudaDeviceSetLimit(int, unsigned long);\n"
               "void later(void*) {}\n"
               "int launch_sort() {\n"
               "  return cudaDeviceSetLimit(6, 1 << 20) + cudaLaunchHostFunc_ptsz(nullptr, "
               "later, nullptr) + cuGetProcAddress_v2(\"cuInit\", nullptr, 12000, 0, "
               "nullptr);\n"
               "}\n");
  const std::string refusal = check(object).refusal;
  EXPECT_NE(refusal.find("\n- labs/08-radix-sort/radix_sort.cu calls cudaLaunchHostFunc (it runs a host "
                         "function from a stream). " +
                         why_of("cudaLaunchHostFunc")),
            std::string::npos)
      << refusal;
  EXPECT_NE(refusal.find("\n- labs/08-radix-sort/radix_sort.cu calls cuGetProcAddress (it reaches any driver "
                         "function by name, host callbacks included). "),
            std::string::npos)
      << refusal;
  EXPECT_NE(
      refusal.find("\n- labs/08-radix-sort/radix_sort.cu calls cudaDeviceSetLimit (it changes a limit of "
                   "the whole device, such as the L2 cache's persisting carve-out). " +
                   why_of("cudaDeviceSetLimit")),
      std::string::npos)
      << refusal;
}

TEST_F(CompiledCalls, AnHonestFileIsNotRefused) {
  const std::string object =
      compiled("honest",
               "#include <cstdio>\n"
               "#include <stdexcept>\n"
               "#include <string>\n"
               "double mean(const double* x, int n) {\n"
               "  if (n <= 0) throw std::invalid_argument(\"n = \" + std::to_string(n));\n"
               "  double sum = 0;\n"
               "  for (int i = 0; i < n; ++i) sum += x[i];\n"
               "  std::printf(\"mean of %d values\\n\", n);\n"
               "  return sum / n;\n"
               "}\n");
  const CallCheck result = check(object);
  EXPECT_EQ(result.refusal, "");
  EXPECT_EQ(result.note, "");
}

TEST_F(CompiledCalls, TheReferenceSolutionIsABug) {
  const std::string object =
      compiled("system", "#include <cstdlib>\nint f() { return std::system(\"ls\"); }\n");
  EXPECT_EQ(
      check_compiled_calls(object, "solutions/08-radix-sort/radix_sort.cu", true, dir_.string()).refusal,
      "the reference solution solutions/08-radix-sort/radix_sort.cu calls what no student file may call "
      "(a bug in the solution), so the lab scores 0 and its tests were not run:\n"
      "- solutions/08-radix-sort/radix_sort.cu calls system (it starts another program). " +
          why_of("system"));
}

TEST_F(CompiledCalls, WithoutNmTheCallsAreANoteNotARefusal) {
  const std::string object = compiled("no_nm", "#include <pthread.h>\nvoid* p = (void*)&pthread_create;\n");
  const std::string saved = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  fs::create_directories(dir_ / "empty");
  ::setenv("PATH", (dir_ / "empty").c_str(), 1);
  const CallCheck result = check(object);
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(result.refusal, "");
  EXPECT_EQ(result.note,
            "the calls of the compiled labs/08-radix-sort/radix_sort.cu were not checked: there is no nm on "
            "PATH (install binutils); the name check and the speed harness's checks still ran");
}

TEST_F(CompiledCalls, NoLibraryIsSkippedAndAMissingOrUnreadableOneIsRefused) {
  EXPECT_EQ(check("").refusal, "");
  EXPECT_EQ(check("").note, "");
  const std::string missing = (dir_ / "liblab08_student.a").string();
  EXPECT_EQ(
      check(missing).refusal,
      "the grader cannot find " + missing +
          ", the compiled labs/08-radix-sort/radix_sort.cu, to check its calls, so the lab scores 0 and its "
          "tests were not run; run ./workbook grade, which builds it");
  std::ofstream(dir_ / "not_an_object.a") << "hello\n";
  const std::string refusal = check((dir_ / "not_an_object.a").string()).refusal;
  EXPECT_EQ(refusal.rfind("the grader could not list the calls of " + (dir_ / "not_an_object.a").string() +
                              ", the compiled labs/08-radix-sort/radix_sort.cu (nm exited with code",
                          0),
            0u)
      << refusal;
}

// ---- nm's lines and the names ----

TEST(CompiledCallNames, ReadsTheUndefinedSymbolsOfNmsOutput) {
  const std::string output =
      "\n"
      "radix_sort.cu.o:\n"
      "                 U _Unwind_Resume\n"
      "                 U std::thread::_M_start_thread(std::unique_ptr<std::thread::_State, "
      "std::default_delete<std::thread::_State> >, void (*)())\n"
      "                 w __pthread_key_create\n"
      "0000000000000000 T launch_sort\n"
      "                 U pthread_create@GLIBC_2.34\n"
      "\n"
      "other.o:\n"
      "                 U cudaMalloc\r\n";
  EXPECT_EQ(parse_undefined_symbols(output),
            (std::vector<std::string>{"_Unwind_Resume",
                                      "std::thread::_M_start_thread(std::unique_ptr<std::thread::_State, "
                                      "std::default_delete<std::thread::_State> >, void (*)())",
                                      "__pthread_key_create", "pthread_create@GLIBC_2.34", "cudaMalloc"}));
  EXPECT_EQ(parse_undefined_symbols(""), std::vector<std::string>{});
}

TEST(CompiledCallNames, MatchesANameWholeWithoutItsVersionParametersOrCudaSuffix) {
  EXPECT_EQ(callee_name("pthread_create@GLIBC_2.34"), "pthread_create");
  EXPECT_EQ(callee_name("pthread_create@@GLIBC_2.34"), "pthread_create");
  EXPECT_EQ(callee_name("std::thread::_M_start_thread(std::unique_ptr<std::thread::_State>, void (*)())"),
            "std::thread::_M_start_thread");
  EXPECT_EQ(callee_name("cudaLaunchHostFunc_ptsz"), "cudaLaunchHostFunc");
  EXPECT_EQ(callee_name("cuGetProcAddress_v2"), "cuGetProcAddress");
  EXPECT_EQ(callee_name("cudaStreamSetAttribute_ptsz"), "cudaStreamSetAttribute");
  for (const char* forbidden : {"pthread_create", "pthread_create@GLIBC_2.2.5", "system@@GLIBC_2.2.5",
                                "execvp", "_Fork", "dlsym", "cudaGetDriverEntryPointByVersion_ptsz",
                                "std::thread::_M_start_thread(std::shared_ptr<std::thread::_Impl_base>)"}) {
    EXPECT_NE(find_forbidden_callee(forbidden), nullptr) << forbidden;
  }
  for (const char* innocent :
       {"pthread_create_wrapper", "my_pthread_create", "systemd", "sort::system(int)", "std::thread::join()",
        "std::thread::_M_start_thread_helper()", "cudaLaunchKernel", "cudaStreamGetAttribute", "exit",
        "atexit", "cudaMalloc_v2", "cudaDeviceSetLimits", "cufork_v2", "forks"}) {
    EXPECT_EQ(find_forbidden_callee(innocent), nullptr) << innocent;
  }
  // Each callee once, however many spellings call it.
  const std::vector<CallViolation> calls =
      find_forbidden_calls({"cudaLaunchHostFunc", "cudaLaunchHostFunc_ptsz", "cudaMalloc", "fork"});
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].callee->name, "cudaLaunchHostFunc");
  EXPECT_EQ(calls[1].callee->name, "fork");
}

TEST(CompiledCallNames, EveryCalleeHasAReasonAndIsDocumented) {
  const std::string readme = read_text(source_tree() / "grader/README.md");
  const std::size_t begin = readme.find("\n### The calls of the compiled file\n");
  ASSERT_NE(begin, std::string::npos);
  const std::string section = readme.substr(begin, readme.find("\n### ", begin + 1) - begin);
  std::set<std::string> seen;
  for (const ForbiddenCallee& callee : forbidden_callees()) {
    EXPECT_TRUE(seen.insert(callee.name).second) << callee.name << " is listed twice";
    EXPECT_NE(callee.why.find("Remove it: your file only computes on the GPU; the tests do the I/O"),
              std::string::npos)
        << callee.name;
    EXPECT_EQ(callee.what.rfind("it", 0), 0u) << callee.name;
    EXPECT_NE(section.find("`" + callee.name + "`"), std::string::npos)
        << callee.name << " is not in grader/README.md's \"The calls of the compiled file\"";
  }
}

TEST(CompiledCallNames, TheManifestNamesTheLibrariesOrNone) {
  const Manifest manifest = parse_manifest(
      R"({"labs": [{"id": "08-radix-sort", "base": "radix_sort", "student_tests": "/b/t",
                    "student_library": "/b/liblab08_student.a", "solution_library": "/b/liblab08_solution.a"},
                   {"id": "09-histograms", "student_tests": "/b/u"}]})",
      "m.json");
  ASSERT_EQ(manifest.labs.size(), 2u);
  EXPECT_EQ(lab_library(manifest.labs[0], false), "/b/liblab08_student.a");
  EXPECT_EQ(lab_library(manifest.labs[0], true), "/b/liblab08_solution.a");
  EXPECT_EQ(lab_library(manifest.labs[1], false), "");
  EXPECT_EQ(lab_library(manifest.labs[1], true), "");
}

// ---- the real labs ----

TEST(CompiledCallsRealLabs, EveryLibraryOfTheBuildPasses) {
#ifndef WORKBOOK_BUILD_DIR
  GTEST_SKIP() << "the tests were built without WORKBOOK_BUILD_DIR";
#else
  if (find_on_path("nm").empty()) GTEST_SKIP() << "no nm on PATH (binutils)";
  const fs::path manifest_path = fs::path(WORKBOOK_BUILD_DIR) / "workbook-labs.json";
  if (!fs::is_regular_file(manifest_path)) GTEST_SKIP() << "no " << manifest_path << " (configure first)";
  const Manifest manifest = load_manifest(manifest_path.string());
  char pattern[] = "/tmp/grader-calls-real-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern), nullptr);
  std::size_t checked = 0;
  for (const LabEntry& lab : manifest.labs) {
    for (const bool solutions : {false, true}) {
      const std::string library = lab_library(lab, solutions);
      std::error_code error;
      if (library.empty() || !fs::is_regular_file(library, error)) continue;  // Not built (yet).
      const CallCheck result =
          check_compiled_calls(library, lab_source_file(lab, solutions), solutions, pattern);
      EXPECT_EQ(result.refusal, "") << library;
      EXPECT_EQ(result.note, "") << library;
      ++checked;
    }
  }
  fs::remove_all(pattern);
  if (checked == 0) GTEST_SKIP() << "the build has no lab libraries yet (./workbook build makes them)";
#endif
}

}  // namespace
}  // namespace workbook::grader
