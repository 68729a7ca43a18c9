"""What scripts/profile.py --json writes, read back: each kernel's mean metrics per launch, named
by ncu as "variant/kernel" inside the driver's NVTX range of a ladder's variant."""


def dram_bytes_by_variant(profile, lab, args):
    """{variant: DRAM bytes read + written per launch, summed over that variant's kernels} from a
    profile report of `lab` run with `args` (a list of strings); {} when there is no report, it is
    of another lab or size, or per launch. Kernels outside a variant's range are left out."""
    if not profile or profile.get("lab") != lab or profile.get("args") != list(args) or profile.get("per_launch"):
        return {}
    out = {}
    for k in profile.get("kernels", []):
        variant, sep, _ = k["kernel"].partition("/")
        m = k["metrics"]
        if sep and "dram__bytes_read.sum" in m and "dram__bytes_write.sum" in m:
            out[variant] = out.get(variant, 0.0) + m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]
    return {v: x for v, x in out.items() if x > 0}
