"""Command-line plumbing shared by the scripts: bad input is one line on stderr and exit code 2
(the same rule as the labs), other failures one line and the script's documented code."""
import argparse
import sys


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, not the usage block followed by the error.

    verbatim: options whose value is always the next word, even one that starts with "-"
    (`--cmake-args -DCMAKE_CUDA_ARCHITECTURES=90`, `--args "--variant onesweep"`): argparse would
    take that word for an option unless it is joined to its flag with "=". Words after "--" are
    left as they are."""

    def __init__(self, *args, verbatim=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.verbatim = frozenset(verbatim)

    def parse_known_args(self, args=None, namespace=None):
        raw = list(sys.argv[1:] if args is None else args)
        joined, i = [], 0
        while i < len(raw):
            if raw[i] == "--":
                joined += raw[i:]
                break
            if raw[i] in self.verbatim and i + 1 < len(raw):
                joined.append(f"{raw[i]}={raw[i + 1]}")
                i += 2
            else:
                joined.append(raw[i])
                i += 1
        return super().parse_known_args(joined, namespace)

    def error(self, message):
        print(f"{self.prog}: error: {message} (run with --help for usage)", file=sys.stderr)
        sys.exit(2)


def fail(prog, code, message):
    print(f"{prog}: error: {message}", file=sys.stderr)
    sys.exit(code)
