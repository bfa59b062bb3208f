"""Command line: ``python -m arrowsparse read-json FILE``.

Prints the JSON description of the one message in FILE, in the schema of
testdata/interop/README.md (what ``arrowpeer read-json`` prints), or
``{"error": "..."}`` with exit status 1 if the message is not valid.
"""

from __future__ import annotations

import json
import sys

from ._describe import describe
from ._errors import ArrowSparseError
from ._read import read_message

USAGE = "usage: python -m arrowsparse read-json FILE"


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "read-json":
        print(USAGE, file=sys.stderr)
        return 2
    try:
        doc = describe(read_message(argv[1], with_metadata=True))
    except ArrowSparseError as err:
        print(json.dumps({"error": f"Invalid: {err}"}))
        return 1
    print(json.dumps(doc, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
