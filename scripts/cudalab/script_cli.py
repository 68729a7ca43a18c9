"""Command-line plumbing shared by the scripts: bad input is one line on stderr and exit code 2
(the same rule as the labs), other failures one line and the script's documented code."""
import argparse
import sys


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, not the usage block followed by the error."""

    def error(self, message):
        print(f"{self.prog}: error: {message} (run with --help for usage)", file=sys.stderr)
        sys.exit(2)


def fail(prog, code, message):
    print(f"{prog}: error: {message}", file=sys.stderr)
    sys.exit(code)
