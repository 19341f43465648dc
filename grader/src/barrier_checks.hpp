/// @file barrier_checks.hpp
/// @brief The divergent-barrier stage: a warning for a __syncthreads() (or a
/// full-mask __syncwarp()) that only some threads reach, because it sits in a
/// branch or loop whose condition depends on the thread index, or after an
/// early return, break or continue that only some threads take. No run shows
/// it reliably (on sm_70 and later such code often gives the right answer, and
/// compute-sanitizer's synccheck says nothing), so the source is read instead.
/// The scan matches braces and parentheses on the code that strip_source()
/// leaves (comments and literals removed); it is not a C++ parser. It costs no
/// points unless the lab's rubric says "barrier_in_divergent_code": "fail".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "manifest.hpp"
#include "source_checks.hpp"

namespace workbook::grader {

/// @brief One barrier that not every thread of its block (or warp) reaches.
struct BarrierFinding {
  std::string file;      ///< The file, relative to the source tree; empty from find_divergent_barriers().
  std::size_t line = 0;  ///< 1-based line of the barrier.
  std::string barrier;   ///< The call as written: "__syncthreads()", "__syncwarp(kFullMask)".
  std::size_t condition_line = 0;  ///< 1-based line of the condition that only some threads pass.
  std::string condition;           ///< The construct: "if (t % (2 * s) == 0)", "for (int i = t; i < n; ++i)".
  /// Empty when the barrier is inside the construct; "return", "break" or
  /// "continue" when the construct guards an exit that comes before it.
  std::string exit;
  bool warp = false;  ///< A __syncwarp(): what matters is the lanes of one warp, not the block.
};

/// @brief Every barrier in @p source that only some threads reach, in line
/// order. A barrier is __syncthreads(), __syncthreads_count/_and/_or(...) or a
/// __syncwarp() with no argument or a full mask (0xffffffff, ~0u, or a
/// constant whose name says full mask, such as kFullMask); a __syncwarp(mask)
/// with any other mask is left alone. A condition depends on the thread when it
/// uses threadIdx, laneid, thread_rank(), a %laneid or %tid read by inline asm,
/// a function of the same file that returns one of those (lane_index()), or a
/// variable of the same function assigned from one of those, directly or
/// through one more variable (t = threadIdx.x; u = t * 2). A condition that
/// only uses threadIdx.x / 32 (or / kWarpSize, >> 5) is the same for the whole
/// warp: it counts for __syncthreads() but not for __syncwarp(). The barrier
/// is flagged when it sits in an if or else, switch, ?:, while, do or for
/// (the for's condition, or a variable its header starts from threadIdx) with
/// such a condition, or after a return in the same function (or in a loop
/// around both), a break out of a loop around it, or a continue before it in
/// that loop, that such a condition guards.
/// @param[in] source The stripped source.
/// @return The findings, with file empty; at most one per barrier.
std::vector<BarrierFinding> find_divergent_barriers(const StrippedSource& source);

/// @brief find_divergent_barriers(strip_source(text)).
/// @param[in] text A file's text.
/// @return The findings, with file empty.
std::vector<BarrierFinding> find_divergent_barriers(std::string_view text);

/// @brief One line for the student: "<file>:<line>: __syncthreads() inside
/// 'if (t < s)' (line 12), whose condition depends on the thread index: a
/// barrier inside a branch that only some threads of the block take is
/// undefined behaviour (...)"; "... after 'if (i >= n) return' (line 5),
/// which only some threads take: ..." (also for a continue); "... that
/// 'if (t >= s) break' (line 5) skips for only some threads: ...".
/// @param[in] finding The finding.
/// @return The line, no newline.
std::string describe_barrier_finding(const BarrierFinding& finding);

/// @brief Checks the files of a lab that check_lab_source() reads (the graded
/// file and the lab-folder files it includes, see lab_source_files()) for
/// barriers in divergent code.
/// @param[in] source_dir The source tree (the student root, or the manifest's
/// source_dir with @p solutions); empty: nothing to check.
/// @param[in] lab The lab.
/// @param[in] solutions Whether the reference solution is graded.
/// @return The findings, file by file, in line order; none when a file cannot
/// be read (the forbidden-names stage refuses such a lab first).
std::vector<BarrierFinding> check_lab_barriers(const std::string& source_dir, const LabEntry& lab,
                                               bool solutions);

/// @brief The reason a lab whose rubric says "barrier_in_divergent_code":
/// "fail" is refused: a first line saying that the lab scores 0 and its tests
/// were not run, then one line "- ..." per finding.
/// @param[in] lab The lab.
/// @param[in] solutions Whether the reference solution is graded (then the
/// finding is a bug in the solution).
/// @param[in] findings The findings, not empty.
/// @return The text, no final newline.
std::string barrier_refusal(const LabEntry& lab, bool solutions, const std::vector<BarrierFinding>& findings);

}  // namespace workbook::grader
