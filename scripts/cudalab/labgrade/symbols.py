"""The allow-list on what was compiled: the object file built from a region file after a
submission's bodies were spliced in, against the same file's object in the base build (the
handout: every region stubbed).

The region check (regions.check_body) reads the source; this reads the machine code's symbol
table, which no trick of the source can hide:
  - defined: the spliced object may define nothing the base object does not, except what the
    compiler generates for code inside a function (weak instantiations of templates the file or
    the standard library already has, function-local statics and lambdas). A replaced libc
    function, an explicit specialisation of the suite's checker, a constructor at namespace
    scope or a redefined cudaEventElapsedTime is a definition the base does not have.
  - referenced: each symbol the base does not already reference must be on ALLOWED_REFERENCES
    (the CUDA runtime's launch, memory, event and occupancy calls, device-side math, the C++
    runtime's exception and allocation support, the suite's own helpers) and not on DENIED_REFERENCES
    (output, process control, the calls that change how the GPU is timed).
  - device code: the spliced object's embedded device code may not call the device printf
    (vprintf) or assert's reporter (__assertfail) unless the base's already does.
`check` returns the problems, one line each, naming the symbol; the grader then takes none of
that file's regions and says why.
"""
import re

ANONYMOUS = "_GLOBAL__N_"         # nvcc names an anonymous namespace per file (a hash of the file)
WEAK = frozenset("WVu")          # nm types of weak or unique definitions (inline, templates)
DEVICE_PRINT = (b"vprintf", b"__assertfail")

# Demangled names (prefixes) a region may newly refer to.
ALLOWED_REFERENCES = (
    "cuda", "__cuda",                     # the runtime API and the launch/registration stubs nvcc emits
    "operator new", "operator delete",
    "std::__throw_", "std::__cxx11::basic_string", "std::basic_string", "std::chrono::",
    "std::invalid_argument::", "std::logic_error::", "std::runtime_error::", "std::length_error::",
    "std::out_of_range::", "std::domain_error::", "std::bad_alloc", "std::exception::",
    "typeinfo for std::", "vtable for std::", "vtable for __cxxabiv1::",
    "__cxa_allocate_exception", "__cxa_free_exception", "__cxa_throw", "__cxa_begin_catch",
    "__cxa_end_catch", "__cxa_rethrow", "__cxa_guard_", "__gxx_personality_v0", "_Unwind_Resume",
    "__stack_chk_fail", "_GLOBAL_OFFSET_TABLE_",
    "memcpy", "memset", "memmove", "memcmp", "strlen",
    "cudalab::",                          # the suite's helpers (common/), but not its report: below
)
MATH = frozenset("""
    sqrt sqrtf cbrt cbrtf exp expf exp2 exp2f expm1 expm1f log logf log2 log2f log10 log10f log1p log1pf
    pow powf sin sinf cos cosf tan tanf asin asinf acos acosf atan atanf atan2 atan2f sinh sinhf cosh coshf
    tanh tanhf fabs fabsf floor floorf ceil ceilf round roundf lround lroundf llround trunc truncf fmod fmodf
    fma fmaf fmin fminf fmax fmaxf hypot hypotf erf erff frexp ldexp ldexpf nextafter nextafterf rint rintf
""".split())
# Never, even where the prefix above would allow it: output, process control, and the calls that
# change what the timer sees (a stream's L2 persistence, device limits, a reset, callbacks).
DENIED_REFERENCES = re.compile(
    r"^(cudalab::Report|cudalab::print|cudaDeviceSetLimit|cudaCtxResetPersistingL2Cache|cudaStreamSetAttribute"
    r"|cudaGraphKernelNodeSetAttribute|cudaDeviceReset|cudaSetDevice|cudaIpc|cudaLaunchHostFunc|cudaStreamAddCallback"
    r"|cudaProfiler|cudaDeviceSetCacheConfig|cudaSetDeviceFlags|cudaEventElapsedTime)")


def parse_nm(text):
    """{symbol: nm type} from `nm -P` output (name type [value size] per line)."""
    symbols = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and len(parts[1]) == 1:
            symbols[parts[0]] = parts[1]
    return symbols


def _stem(demangled):
    """The name of a function without its template arguments, parameters or return type:
    'void vec_add::naive<float>(float const*)' -> 'vec_add::naive'."""
    prev = None
    while prev != demangled:
        prev, demangled = demangled, re.sub(r"<[^<>]*>", "", demangled)
    head = demangled.split("(")[0].strip()
    return head.split(" ")[-1] if head else demangled


def _allowed_reference(name, lab):
    if DENIED_REFERENCES.match(name):
        return False
    if name in MATH or name.startswith(ALLOWED_REFERENCES):
        return True
    return bool(lab) and name.startswith(lab + "::")  # the lab's own functions in its other files


def check(spliced, base, demangle, spliced_bytes=b"", base_bytes=b"", lab=None):
    """The problems of a spliced object: `spliced` and `base` are parse_nm's tables, `demangle`
    maps a mangled name to its readable form, the bytes are the two object files (their embedded
    device code). [] when the object is allowed."""
    problems = []
    base_defined = {s for s, t in base.items() if t not in "Uw" and t.isupper() or t in WEAK}
    base_stems = {_stem(demangle(s)) for s in base_defined}
    for sym, kind in sorted(spliced.items()):
        readable = demangle(sym)
        if kind in "Uw":
            if kind == "w" or sym in base or _allowed_reference(readable, lab):
                continue
            problems.append(f"refers to '{readable}', which a student region may not call")
            continue
        if not (kind.isupper() or kind in WEAK) or sym in base_defined or ANONYMOUS in sym:
            continue  # local symbols (and nvcc's hashed anonymous namespaces) cannot take another's place
        generated = kind in WEAK and (sym.startswith(("_ZZ", "_ZGVZ")) or readable.startswith(
            ("std::", "void std::", "__gnu_cxx::", "void __gnu_cxx::")) or _stem(readable) in base_stems)
        if not generated:
            problems.append(f"defines '{readable}' ({'weak' if kind in WEAK else 'strong'}), which the file "
                            "may not define (a region only writes the body of its own function)")
    for call in DEVICE_PRINT:
        if call in spliced_bytes and call not in base_bytes:
            problems.append(f"device code calls '{call.decode()}' (device code may not print)")
    return problems
