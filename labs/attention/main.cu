// attention: row softmax, the prefill (all queries of a sequence: a GEMM-shaped, compute-bound
// problem) and the decode (one query against a long KV cache: memory-bound), every variant checked
// against the CPU and timed against the copy ceiling and the unfused cuBLAS path of the same run.
//   ./labs/attention                              softmax 16384 x 4096, prefill 64 heads x 4096 (both masks), decode
//   ./labs/attention --section prefill --seq 1024 --dim 64 --mask causal
//   ./labs/attention --section decode --kv 131072 --heads 16
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "attention.hpp"
#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "common/variants.hpp"
#include "problem.hpp"

namespace {

using attention::Kind;
using attention::Variant;

struct Options {
  cudalab::CommonOptions common;
  std::string variant = "all";
  std::string section = "all";
  std::string type = "both";
  std::string mask = "both";
  int rows = 16384, cols = 4096;
  int heads = 64, seq = 4096, dim = 128, kv = 32768;
  bool no_unfused = false;
};

bool wants(const Options& o, Kind k) { return o.section == "all" || o.section == attention::kind_name(k); }

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("attention", "Softmax, the fused attention prefill (SIMT, mma.sync and Hopper wgmma Tensor Cores) "
                                "and the split decode, checked against the CPU, timed against the copy and cuBLAS.");
  cli.variant_option(o.variant, attention::variant_names(),
                     cudalab::names_of(attention::all_variants(), attention::variant_summary));
  cli.option("--section", o.section, "run one part only", {"all", "softmax", "prefill", "decode"});
  cli.option("--rows", o.rows, "softmax rows", 1, 1 << 24);
  cli.option("--cols", o.cols, "softmax row length", 1, attention::kMaxSoftmaxCols);
  cli.option("--type", o.type, "softmax element type (FP32 math either way)", {"both", "f32", "bf16"});
  cli.option("--heads", o.heads, "heads (batch x heads) of the prefill and the decode", 1, 65535);
  cli.option("--seq", o.seq, "prefill sequence length (queries = keys)", 1, 1 << 20);
  cli.option("--dim", o.dim, "head dimension", 1, 1024);
  cli.option("--mask", o.mask, "prefill: not masked, causal, or both", {"both", "none", "causal"});
  cli.option("--kv", o.kv, "decode: keys in the KV cache", 1, 1 << 24);
  cli.flag("--no-unfused", o.no_unfused, "leave out the unfused cuBLAS prefill (it keeps S x S scores in memory)");
  cli.add_common(o.common);
  cli.footer("Examples:\n  attention\n  attention --section prefill --seq 1024 --dim 64 --mask causal\n"
             "  attention --section decode --kv 131072 --heads 16\n"
             "  attention --section softmax --rows 4096 --cols 32768 --type bf16");
  if (auto code = cli.parse(argc, argv)) return *code;
  if (!attention::supported_dim(o.dim)) {
    throw cudalab::UsageError(fmt::format("--dim {}: the kernels take head dimensions 64 and 128", o.dim));
  }
  const std::vector<Variant> chosen =
      cudalab::select_variants(attention::all_variants(), attention::variant_name, o.variant);
  cli.narrow_section(o.section, o.variant, attention::kind_name(attention::kind_of(chosen.front())));

  cudalab::LabRun run("attention", o.common, "bf16", 0);
  const std::vector<Variant> runs = cudalab::runnable_variants(  // prefill_wgmma: sm_90 only
      chosen, o.variant, attention::variant_name, [](Variant v) { return attention::unavailable(v); },
      [&](const std::string& line) { run.report().note(line); });
  const bool unfused = !o.no_unfused;
  attention::require_memory(wants(o, Kind::kSoftmax), wants(o, Kind::kPrefill), wants(o, Kind::kDecode), o.rows,
                            o.cols, {o.heads, o.seq, o.seq, o.dim, false}, {o.heads, 1, o.kv, o.dim, false}, unfused);
  const double tc_peak = run.facts().theoretical_bf16_tensor_gflops();

  if (wants(o, Kind::kSoftmax)) {
    for (const attention::Elem e : {attention::Elem::kF32, attention::Elem::kBf16}) {
      const bool f32 = e == attention::Elem::kF32;
      if (o.type != "both" && (o.type == "f32") != f32) continue;
      attention::SoftmaxProblem p(o.rows, o.cols, e, o.common.seed, cudalab::Replays::kCaught);
      run.section(cudalab::Section::titled(f32 ? "softmax_f32" : "softmax_bf16",
                                           fmt::format("softmax of {} rows x {} ({}; GB/s: the rows read and written "
                                                       "once)", o.rows, o.cols, f32 ? "FP32" : "BF16")),
                  p.rungs(runs));
    }
  }
  if (wants(o, Kind::kPrefill)) {
    for (const bool causal : {false, true}) {
      if (o.mask != "both" && (o.mask == "causal") != causal) continue;
      const attention::Shape shape{o.heads, o.seq, o.seq, o.dim, causal};
      attention::AttentionProblem p(Kind::kPrefill, shape, o.common.seed, cudalab::Replays::kCaught, unfused);
      cudalab::Section s = cudalab::Section::titled(
          causal ? "prefill_causal" : "prefill",
          fmt::format("prefill{}: {} heads x {} tokens, d = {} (GFLOP/s: the useful FLOPs; GB/s: Q, K, V and O once)",
                      causal ? " (causal)" : "", o.heads, o.seq, o.dim));
      s.roofs = cudalab::Roofs::kNone;
      s.peak_gflops = tc_peak > 0 ? tc_peak : run.facts().theoretical_fp32_gflops();
      s.peak_name = tc_peak > 0 ? "BF16 TC" : "FP32";
      s.shape = {false, "x unfused"};
      run.section(s, p.rungs(runs));
    }
  }
  if (wants(o, Kind::kDecode)) {
    attention::AttentionProblem p(Kind::kDecode, {o.heads, 1, o.kv, o.dim, false}, o.common.seed + 7,
                                  cudalab::Replays::kCaught, false);
    run.section(cudalab::Section::titled("decode", fmt::format("decode: {} heads, one query against {} keys, d = {} "
                                                               "(GB/s: the KV cache read once)", o.heads, o.kv, o.dim)),
                p.rungs(runs));
  }
  return run.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("attention", [&] { return run(argc, argv); });
}
