// Tests of what no student file may use, in any lab (source_checks.hpp,
// forbidden_everywhere()): hostile files are refused with file:line, innocent
// look-alikes are not, and the real skeletons and reference solutions pass.
// No GPU needed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "manifest.hpp"
#include "rubric.hpp"
#include "source_checks.hpp"
#include "source_tree.hpp"

namespace workbook::grader {
namespace {

namespace fs = std::filesystem;
using test_tree::read_text;
using test_tree::real_labs;
using test_tree::source_tree;

/// "line name found" for each violation.
std::vector<std::string> everywhere_in(const std::string& text) {
  std::vector<std::string> out;
  for (const SourceViolation& v : find_violations_everywhere(text)) {
    EXPECT_EQ(v.by, ForbiddenBy::grader);
    out.push_back(std::to_string(v.line) + " " + v.name + " " + v.found);
  }
  return out;
}

using Lines = std::vector<std::string>;

// ---- one hostile file per category ----

class EverywhereFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/grader-everywhere-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    fs::create_directories(dir_ / "labs/02-abc");
    fs::create_directories(dir_ / "solutions/02-abc");
    lab_.id = "02-abc";
    lab_.base = "abc";
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& file, const std::string& text) { std::ofstream(dir_ / file) << text; }

  /// The refusal of labs/02-abc/abc.cu with @p text, which forbids no names of its own.
  std::string refusal_of(const std::string& text) {
    write("labs/02-abc/abc.cu", text);
    return check_lab_source(dir_.string(), lab_, false, {});
  }

  fs::path dir_;
  LabEntry lab_;
};

const char* const kHeader =
    "labs/02-abc/abc.cu uses what no student file may use, so the lab scores 0 and its tests were not run. "
    "Remove each of these and grade again:\n";
const char* const kFix = " Remove it: your file only computes on the GPU; the tests do the I/O";

TEST_F(EverywhereFiles, RefusesExit) {
  EXPECT_EQ(
      refusal_of("#include <cstdlib>\n"
                 "#include \"abc.cuh\"\n"
                 "\n"
                 "void launch_abc(int n) {\n"
                 "  if (n < 0) std::exit(0);\n"
                 "}\n"),
      std::string(kHeader) +
          "- labs/02-abc/abc.cu:5: remove std::exit ('exit' is forbidden in every lab). It ends the test "
          "program, or runs code when it ends, so the tests after it never report." +
          kFix + "; report a failure by throwing (CUDA_CHECK does)");
}

TEST_F(EverywhereFiles, RefusesAbortTerminateAndTheirLibrarySpellings) {
  const std::string refusal = refusal_of(
      "void f() { abort(); }\n"
      "void g() { std::terminate(); }\n"
      "void h() { __builtin_abort(); }\n"
      "void i() { _Exit(1); std::quick_exit(2); ::_exit(3); }\n"
      "static int registered = std::atexit(+[] {});\n");
  EXPECT_NE(
      refusal.find("abc.cu:1: remove abort ('abort' is forbidden in every lab). It ends the test program"),
      std::string::npos)
      << refusal;
  EXPECT_NE(refusal.find("abc.cu:2: remove std::terminate ('terminate'"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("abc.cu:3: remove __builtin_abort ('abort'"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("abc.cu:4: remove _Exit ('_Exit'"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("abc.cu:4: remove std::quick_exit ('quick_exit'"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("abc.cu:4: remove ::_exit ('_exit'"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("abc.cu:5: remove std::atexit ('atexit'"), std::string::npos) << refusal;
}

TEST_F(EverywhereFiles, RefusesSignals) {
  EXPECT_EQ(everywhere_in("#include <csignal>\n"
                          "void f() { std::signal(SIGSEGV, SIG_IGN); }\n"
                          "void g() { raise(SIGKILL); kill(getppid(), 9); }\n"
                          "struct sigaction action;\n"),
            (Lines{"2 signal std::signal", "3 raise raise", "3 kill kill", "4 sigaction sigaction"}));
}

TEST_F(EverywhereFiles, RefusesSetenv) {
  const std::string refusal =
      refusal_of("#include <cstdlib>\n\nint seed = setenv(\"WORKBOOK_SEED\", \"1\", 1);\n");
  EXPECT_EQ(
      refusal,
      std::string(kHeader) +
          "- labs/02-abc/abc.cu:3: remove setenv ('setenv' is forbidden in every lab). It reads or "
          "changes the environment, through which the grader gives the tests their seed, rubric and "
          "results file." +
          kFix +
          "\n"
          "- labs/02-abc/abc.cu:3: remove the string \"WORKBOOK_SEED\" ('WORKBOOK_SEED' is forbidden in "
          "every lab). The test harness (GoogleTest, workbook::testing) and the grader's variables "
          "(WORKBOOK_RESULTS, WORKBOOK_SEED, WORKBOOK_RUBRIC) run the tests and carry their results; a "
          "student file may not touch them." +
          kFix);
  EXPECT_EQ(everywhere_in("void f() { putenv(s); unsetenv(\"X\"); clearenv(); }\n"
                          "extern char** environ; char** e = __environ;\n"),
            (Lines{"1 putenv putenv", "1 unsetenv unsetenv", "1 clearenv clearenv", "2 environ environ",
                   "2 environ __environ"}));
}

TEST_F(EverywhereFiles, RefusesFilesAndStreams) {
  const std::string refusal = refusal_of(
      "#include <fstream>\n"
      "void f() {\n"
      "  FILE* out = fopen(\"/tmp/x\", \"w\");\n"
      "  std::ofstream log(\"/tmp/y\");\n"
      "  int fd = ::open(\"/tmp/z\", 0); write(fd, \"x\", 1);\n"
      "}\n");
  EXPECT_NE(
      refusal.find("abc.cu:3: remove FILE ('FILE' is forbidden in every lab). It opens or writes files or "
                   "file descriptors, and the tests' results file is one of them." +
                   std::string(kFix) + " (printf to stdout is fine)"),
      std::string::npos)
      << refusal;
  EXPECT_NE(refusal.find("abc.cu:3: remove fopen ('fopen'"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("abc.cu:4: remove std::ofstream ('ofstream'"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("abc.cu:5: remove ::open ('open'"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("abc.cu:5: remove write ('write'"), std::string::npos) << refusal;
  EXPECT_EQ(everywhere_in("std::ifstream a; std::fstream b; auto c = fopen64(p, m); int d = open64(p, 0);\n"
                          "int e = __open_2(p, 0); int f = creat(p, 0); int g = openat(3, p, 0);\n"
                          "namespace fs = std::filesystem; int h = __dprintf_chk(3, 1, \"%d\", 1);\n"),
            (Lines{"1 ifstream std::ifstream", "1 fstream std::fstream", "1 fopen fopen64", "1 open open64",
                   "2 open __open_2", "2 creat creat", "2 openat openat", "3 filesystem std::filesystem",
                   "3 dprintf __dprintf_chk"}));
}

TEST_F(EverywhereFiles, RefusesStartingProcesses) {
  const std::string refusal = refusal_of(
      "void f() {\n"
      "  std::system(\"echo passed\");\n"
      "  FILE_HANDLE h = popen(\"ls\", \"r\");\n"
      "  if (fork() == 0) execvp(argv[0], argv);\n"
      "}\n");
  EXPECT_NE(
      refusal.find("abc.cu:2: remove std::system ('system' is forbidden in every lab). It starts another "
                   "program or reaches into another process; the grader runs the tests in a process of "
                   "their own." +
                   std::string(kFix)),
      std::string::npos)
      << refusal;
  EXPECT_NE(refusal.find("abc.cu:3: remove popen ('popen'"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("abc.cu:4: remove fork ('fork'"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("abc.cu:4: remove execvp ('execvp'"), std::string::npos) << refusal;
  EXPECT_EQ(everywhere_in("pid_t p = vfork(); posix_spawn(&p, path, 0, 0, argv, env); syscall(60, 0);\n"),
            (Lines{"1 vfork vfork", "1 posix_spawn posix_spawn", "1 syscall syscall"}));
}

TEST_F(EverywhereFiles, RefusesRedirectingOutput) {
  const std::string refusal = refusal_of(
      "#include <cstdio>\n"
      "#include <unistd.h>\n"
      "static int quiet = [] {\n"
      "  std::freopen(\"/dev/null\", \"w\", stdout);\n"
      "  dup2(3, 1);\n"
      "  return close(2);\n"
      "}();\n");
  EXPECT_NE(
      refusal.find("abc.cu:4: remove std::freopen ('freopen' is forbidden in every lab). It redirects or "
                   "closes the program's output or another file descriptor, such as the tests' results "
                   "file." +
                   std::string(kFix)),
      std::string::npos)
      << refusal;
  EXPECT_NE(refusal.find("abc.cu:5: remove dup2 ('dup2'"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("abc.cu:6: remove close ('close'"), std::string::npos) << refusal;
}

TEST_F(EverywhereFiles, RefusesWritingTheResultsFile) {
  const std::string refusal = refusal_of(
      "#include <cstdio>\n"
      "#include <cstdlib>\n"
      "// Pretend that every test passed.\n"
      "static int forged = [] {\n"
      "  const char* path = std::getenv(\"WORKBOOK_RESULTS\");\n"
      "  std::FILE* out = std::fopen(path, \"a\");\n"
      "  "
      "std::fputs(\"{\\\"event\\\":\\\"end\\\",\\\"test\\\":\\\"Abc.Basic\\\",\\\"status\\\":\\\"passed\\\"}"
      "\\n\", "
      "out);\n"
      "  return 0;\n"
      "}();\n");
  EXPECT_NE(refusal.find("abc.cu:5: remove std::getenv ('getenv' is forbidden in every lab)"),
            std::string::npos)
      << refusal;
  EXPECT_NE(
      refusal.find("abc.cu:5: remove the string \"WORKBOOK_RESULTS\" ('WORKBOOK_RESULTS' is forbidden in "
                   "every lab). The test harness"),
      std::string::npos)
      << refusal;
  EXPECT_NE(refusal.find("abc.cu:6: remove std::FILE ('FILE'"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("abc.cu:6: remove std::fopen ('fopen'"), std::string::npos) << refusal;
  // Split over adjacent literals, as a macro, or through the harness.
  EXPECT_EQ(
      everywhere_in(
          "const char* a = \"WORKBOOK_\"\n  \"RESULTS\";\n"
          "#ifdef WORKBOOK_RESULTS\n#endif\n"
          "#include <gtest/gtest.h>\n"
          "#include \"workbook/testing.hpp\"\n"
          "void f() { ::testing::UnitTest::GetInstance(); workbook::testing::record_metric(\"x\", 1); "
          "}\n"),
      (Lines{"1 WORKBOOK_RESULTS the string \"WORKBOOK_RESULTS\"", "3 WORKBOOK_RESULTS WORKBOOK_RESULTS",
             "5 gtest #include <gtest/gtest.h>", "6 testing #include \"workbook/testing.hpp\"",
             "7 testing ::testing::UnitTest::GetInstance", "7 testing workbook::testing::record_metric"}));
}

TEST_F(EverywhereFiles, RefusesOtherSpellingsOfAForbiddenCall) {
  EXPECT_EQ(
      everywhere_in("extern \"C\" void bye(int) __asm__(\"exit\");\n"
                    "extern \"C\" void out(int) __attribute__((weak, alias(\"_exit\")));\n"
                    "void f() { asm volatile(\"call exit@PLT\"); __asm__ __volatile__(\"int $0x80\"); }\n"
                    "extern \"C\" void _ZSt9terminatev();\n"
                    "void g() { auto* end = &::exit; void* s = dlsym(RTLD_DEFAULT, \"exit\"); }\n"
                    "#define GLUE(a, b) a##b\n"),
      (Lines{"1 exit __asm__(\"exit\")", "2 _exit alias(\"_exit\")", "3 exit asm(\"call exit@PLT\")",
             "3 syscall __asm__(\"int $0x80\")", "4 _Z... _ZSt9terminatev", "5 exit ::exit",
             "5 dlsym dlsym"}));
  // Token pasting and computed includes could build any name: refused in every lab.
  const std::vector<SourceViolation> pasted =
      find_violations("#define GLUE(a, b) a##b\n#include HEADER\n", {});
  ASSERT_EQ(pasted.size(), 2u);
  EXPECT_EQ(pasted[0].by, ForbiddenBy::grader);
  EXPECT_EQ(
      describe_violation(pasted[0]),
      "1: remove the token-pasting operator ## ('##' is forbidden in every lab). A pasted token can build "
      "a forbidden name that the grader cannot see: write the names out");
  EXPECT_NE(refusal_of("#define GLUE(a, b) a##b\nint x = GLUE(ex, it);\n")
                .find("labs/02-abc/abc.cu:1: remove the token-pasting operator ##"),
            std::string::npos);
}

/// The group of forbidden_everywhere() that lists @p name.
const ForbiddenGroup& group_of(const std::string& name) {
  for (const ForbiddenGroup& group : forbidden_everywhere()) {
    if (std::find(group.names.begin(), group.names.end(), name) != group.names.end()) return group;
  }
  ADD_FAILURE() << "no group lists " << name;
  return forbidden_everywhere().front();
}

// Every name of @p group, used once in code, is refused once with the group's reason.
void expect_each_name_refused(const ForbiddenGroup& group) {
  for (const std::string& name : group.names) {
    const std::vector<SourceViolation> found = find_violations_everywhere("void f() { x = " + name + "; }\n");
    ASSERT_EQ(found.size(), 1u) << name;
    EXPECT_EQ(found[0].name, name);
    EXPECT_EQ(found[0].why, group.why) << name;
  }
}

TEST_F(EverywhereFiles, RefusesThreadsAndHostCallbacks) {
  const ForbiddenGroup group = group_of("pthread_create");
  EXPECT_EQ(
      group.why,
      "It starts a thread or a host callback: the grader times your code and the yardstick one after the "
      "other on an idle GPU, and a thread or callback of your own could run work between the calls, "
      "keeping the GPU busy while the yardstick runs. Your functions run on the caller's thread and only "
      "launch GPU work." +
          std::string(kFix));
  expect_each_name_refused(group);
  EXPECT_EQ(refusal_of("#include <future>\n"
                       "int launch_abc() {\n"
                       "  auto done = std::async(std::launch::async, [] { return 1; });\n"
                       "  cudaLaunchHostFunc(0, nullptr, nullptr);\n"
                       "  return done.get();\n"
                       "}\n"),
            std::string(kHeader) +
                "- labs/02-abc/abc.cu:1: remove #include <future> ('future' is forbidden in every lab). " +
                group.why +
                "\n- labs/02-abc/abc.cu:3: remove std::async ('async' is forbidden in every lab). " +
                group.why +
                "\n- labs/02-abc/abc.cu:3: remove std::launch::async ('async' is forbidden in every lab). " +
                group.why +
                "\n- labs/02-abc/abc.cu:4: remove cudaLaunchHostFunc ('cudaLaunchHostFunc' is forbidden in "
                "every lab). " +
                group.why);
  EXPECT_EQ(everywhere_in("#include <thread>\n#include <pthread.h>\n#include <threads.h>\n#include <omp.h>\n"
                          "#include <execution>\n#include <bits/std_thread.h>\n"
                          "std::jthread worker; void g() { asm(\"call pthread_create@PLT\"); }\n"),
            (Lines{"1 thread #include <thread>", "2 pthread #include <pthread.h>",
                   "3 threads #include <threads.h>", "4 omp #include <omp.h>",
                   "5 execution #include <execution>", "6 thread #include <bits/std_thread.h>",
                   "7 jthread std::jthread", "7 pthread_create asm(\"call pthread_create@PLT\")"}));
}

TEST_F(EverywhereFiles, RefusesSettingsOfTheWholeGpuAlsoAsMembers) {
  const ForbiddenGroup group = group_of("cudaDeviceSetLimit");
  EXPECT_TRUE(group.members_too);
  EXPECT_EQ(group.why,
            "It changes a setting of the whole GPU that the yardstick shares (the L2 cache's persisting "
            "carve-out, the cache configuration, the device's limits): the grader times the yardstick on the "
            "same GPU, which would run under your settings. Use the GPU as the tests hand it to you." +
                std::string(kFix));
  expect_each_name_refused(group);
  const std::string refusal = refusal_of(
      "void launch_abc(const float* a, std::size_t bytes, cudaStream_t stream) {\n"
      "  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, bytes);\n"
      "  cudaStreamAttrValue attr = {};\n"
      "  attr.accessPolicyWindow.base_ptr = const_cast<float*>(a);\n"
      "  attr . accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;\n"
      "  cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr);\n"
      "}\n");
  for (const char* line :
       {"abc.cu:2: remove cudaDeviceSetLimit ('cudaDeviceSetLimit' is forbidden in every lab). It changes a "
        "setting of the whole GPU",
        "abc.cu:2: remove cudaLimitPersistingL2CacheSize ('cudaLimitPersistingL2CacheSize'",
        "abc.cu:4: remove accessPolicyWindow ('accessPolicyWindow' is forbidden in every lab). It changes",
        "abc.cu:5: remove accessPolicyWindow ('accessPolicyWindow'",
        "abc.cu:5: remove cudaAccessPropertyPersisting ('cudaAccessPropertyPersisting'",
        "abc.cu:6: remove cudaStreamSetAttribute ('cudaStreamSetAttribute'",
        "abc.cu:6: remove cudaStreamAttributeAccessPolicyWindow ('cudaStreamAttributeAccessPolicyWindow'"}) {
    EXPECT_NE(refusal.find(line), std::string::npos) << line << "\n" << refusal;
  }
  EXPECT_EQ(everywhere_in("void f(cudaLaunchAttribute* a) { a->accessPolicyWindow.num_bytes = 0; "
                          "cudaDeviceSetCacheConfig(cudaFuncCachePreferL1); }\n"),
            (Lines{"1 accessPolicyWindow accessPolicyWindow",
                   "1 cudaDeviceSetCacheConfig cudaDeviceSetCacheConfig"}));
}

// ---- innocent look-alikes ----

TEST_F(EverywhereFiles, ThreadIndicesCooperativeGroupsAndAsyncCopiesAreGraded) {
  EXPECT_EQ(
      refusal_of("#include <cooperative_groups.h>\n"
                 "#include <cuda_runtime.h>\n"
                 "namespace cg = cooperative_groups;\n"
                 "__global__ void add(const float* a, float* c, int n) {\n"
                 "  int thread = threadIdx.x + blockIdx.x * blockDim.x;\n"
                 "  int threads = blockDim.x * gridDim.x;\n"
                 "  cg::thread_block block = cg::this_thread_block();\n"
                 "  unsigned smem = 0;\n"
                 "  asm volatile(\"cp.async.ca.shared.global [%0], [%1], 16;\" :: \"r\"(smem), \"l\"(a));\n"
                 "  asm volatile(\"cp.async.wait_all;\");\n"
                 "  if (thread < n) c[thread] = a[thread] + block.thread_rank() + threads;\n"
                 "}\n"
                 "void launch_add(const float* a, float* c, int n, cudaStream_t stream) {\n"
                 "  cudaMemcpyAsync(c, a, n * sizeof(float), cudaMemcpyDeviceToDevice, stream);\n"
                 "  add<<<1, 1, 0, stream>>>(a, c, n);\n"
                 "}\n"),
      "");
}

TEST_F(EverywhereFiles, InnocentLookAlikesAreGraded) {
  write("labs/02-abc/abc.cuh", "#pragma once\n/// Returns the exit code; never calls exit().\nint run();\n");
  EXPECT_EQ(
      refusal_of("#include \"abc.cuh\"\n"
                 "#include <cstdio>\n"
                 "// std::exit(1) would end the tests; so would abort(), fopen() or system().\n"
                 "/* getenv(\"WORKBOOK_RESULTS\") */\n"
                 "int exit_code = 0; int on_exit_message = 1; int exited, opened, file_count, system_size;\n"
                 "int run() {\n"
                 "  std::printf(\"exit: done, open the file, kill the process, call system()\\n\");\n"
                 "  const char* word = \"exit\";\n"
                 "  tile.open(); tile->close(); stream.write(word, 4); config.signal = 2;\n"
                 "  int lane; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n"
                 "  asm volatile(\"trap;\");\n"
                 "  return exit_code + on_exit_message + terminate_after + kill_count + testing_mode;\n"
                 "}\n"),
      "");
  EXPECT_EQ(everywhere_in("double x = 1e64; int open_slots = 0, writes = 0, closed = 0;\n"
                          "template <class... Ts> void f(Ts... ts);\n"
                          "#include <system_error>\n#include <cstdlib>\n#include <string>\n"),
            Lines{});
}

TEST_F(EverywhereFiles, ALabWithoutSourcesIsGradedUnlessItForbidsNamesOfItsOwn) {
  // The grader's end-to-end tests grade fake labs that have no sources.
  EXPECT_EQ(check_lab_source(dir_.string(), lab_, false, {}), "");
  EXPECT_EQ(check_lab_source("", lab_, false, {}), "");
  // A lab that forbids names of its own still insists on its file.
  EXPECT_NE(check_lab_source(dir_.string(), lab_, false, {{"cub", "CUB is the yardstick"}}), "");
  // Both kinds in one file: each with its reason, in line order.
  write("labs/02-abc/abc.cu", "void f() {\n  exit(1);\n  cub::DeviceScan::ExclusiveSum();\n}\n");
  EXPECT_EQ(
      check_lab_source(dir_.string(), lab_, false, {{"cub", "CUB is the yardstick"}, {"exit", "no"}}),
      "labs/02-abc/abc.cu uses what this lab forbids, so the lab scores 0 and its tests were not run. "
      "Remove each of these and grade again:\n"
      "- labs/02-abc/abc.cu:2: remove exit ('exit' is forbidden in this lab). no\n"
      "- labs/02-abc/abc.cu:3: remove cub::DeviceScan::ExclusiveSum ('cub' is forbidden in this lab). CUB is "
      "the yardstick");
  write("labs/02-abc/abc.cu", "void f() {\n  exit(1);\n  cub::DeviceScan::ExclusiveSum();\n}\n");
  const std::string both = check_lab_source(dir_.string(), lab_, false, {{"cub", "CUB is the yardstick"}});
  EXPECT_EQ(
      both.rfind("labs/02-abc/abc.cu uses what this lab forbids and what no student file may use, so", 0), 0u)
      << both;
  EXPECT_NE(both.find("\n- labs/02-abc/abc.cu:2: remove exit ('exit' is forbidden in every lab)."),
            std::string::npos)
      << both;
  // The reference solution and the lab's headers it includes are checked too.
  write("solutions/02-abc/abc.cu", "#include \"abc.cuh\"\n");
  write("labs/02-abc/abc.cuh", "#pragma once\n#include <cstdlib>\ninline void stop() { std::abort(); }\n");
  EXPECT_EQ(check_lab_source(dir_.string(), lab_, true, {})
                .rfind("the reference solution solutions/02-abc/abc.cu uses what no student file may use (a "
                       "bug in the "
                       "solution), so the lab scores 0 and its tests were not run:\n"
                       "- labs/02-abc/abc.cuh:3: remove std::abort ('abort' is forbidden in every lab).",
                       0),
            0u);
}

// ---- the real labs ----

TEST(EverywhereRealLabs, SkeletonsAndSolutionsAreNotRefused) {
  const fs::path root = source_tree();
  ASSERT_TRUE(fs::is_regular_file(root / "grader/rubric.json")) << root;
  const Rubric rubric = load_rubric((root / "grader/rubric.json").string());
  const std::vector<LabEntry> labs = real_labs();
  ASSERT_GE(labs.size(), 7u);
  for (const LabEntry& lab : labs) {
    ASSERT_EQ(rubric.labs.count(lab.id), 1u) << lab.id;
    const std::vector<ForbiddenName>& forbidden = rubric.labs.at(lab.id).forbidden;
    for (const bool solutions : {false, true}) {
      if (solutions && !fs::is_directory(root / "solutions")) continue;  // The students' release.
      ASSERT_TRUE(fs::is_regular_file(root / lab_source_file(lab, solutions)))
          << lab_source_file(lab, solutions);
      EXPECT_EQ(check_lab_source(root.string(), lab, solutions, forbidden), "") << lab.id;
    }
  }
}

TEST(EverywhereRealLabs, EveryStudentFileAndHeaderPassesOnItsOwn) {
  // Every .cu and .cuh of labs/NN-name/ (experiment.cu is the instructor's
  // bench program, not graded, and so are the comparisons beside the
  // solutions, experiment_reference.cu) and every reference solution (none in
  // the students' release).
  const fs::path root = source_tree();
  std::size_t files = 0;
  for (const char* top : {"labs", "solutions"}) {
    if (!fs::is_directory(root / top)) continue;
    for (const fs::directory_entry& lab : fs::directory_iterator(root / top)) {
      if (!lab.is_directory()) continue;
      for (const fs::directory_entry& file : fs::directory_iterator(lab.path())) {
        const std::string name = file.path().filename().string();
        const std::string ext = file.path().extension().string();
        if (!file.is_regular_file() || (ext != ".cu" && ext != ".cuh") || name.rfind("experiment", 0) == 0)
          continue;
        ++files;
        for (const SourceViolation& v : find_violations_everywhere(read_text(file.path())))
          ADD_FAILURE() << file.path().string() << ":" << describe_violation(v);
      }
    }
  }
  EXPECT_GE(files, fs::is_directory(root / "solutions") ? 30u : 20u);
}

TEST(EverywhereList, IsWellFormedAndDocumented) {
  const std::string readme = read_text(source_tree() / "grader/README.md");
  std::set<std::string> seen;
  for (const ForbiddenGroup& group : forbidden_everywhere()) {
    EXPECT_NE(group.why.find("Remove it: your file only computes on the GPU; the tests do the I/O"),
              std::string::npos)
        << group.why;
    EXPECT_EQ(group.why.find('\n'), std::string::npos);
    for (const std::string& name : group.names) {
      EXPECT_TRUE(seen.insert(name).second) << name << " is listed twice";
      EXPECT_TRUE(std::regex_match(name, std::regex("[A-Za-z_][A-Za-z0-9_]*"))) << name;
      EXPECT_NE(readme.find("`" + name + "`"), std::string::npos) << name << " is not in grader/README.md";
    }
  }
}

}  // namespace
}  // namespace workbook::grader
