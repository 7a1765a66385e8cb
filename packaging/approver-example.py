#!/usr/bin/env python3
"""An example approver for rsh's [approval] approver (see rsh-policy(5), APPROVAL).

rsh runs it with an empty environment when a command needs confirmation and there is no
terminal to ask on. It reads one JSON request on standard input:

    {"id": "…", "user": "ann", "host": "build1", "cwd": "/srv/app", "argv": ["make", "deploy"],
     "command": "make deploy", "program": "/usr/bin/make", "reason": "listed in …",
     "risk": "medium"}

and writes one JSON answer on standard output, then exits 0:

    {"decision": "allow", "message": "…", "remember": 300}   or   {"decision": "deny", …}

This one allows a command when a line of the rules file beside it (this file's name with
".rules" for ".py") is a regular expression matching the whole command, and says no to
everything else. A real approver would ask someone: post to a chat channel and wait for a
reaction, open a ticket, or ask a supervising process. Whatever it does must finish within
[approval] timeout, or rsh counts it as "no".
"""

import json
import pathlib
import re
import sys


def main():
    request = json.loads(sys.stdin.readline())
    rules = pathlib.Path(__file__).with_suffix(".rules")
    patterns = rules.read_text().splitlines() if rules.exists() else []
    for pattern in patterns:
        if pattern.strip() and re.fullmatch(pattern.strip(), request["command"]):
            answer = {"decision": "allow", "message": f"matches {pattern.strip()!r}"}
            break
    else:
        answer = {"decision": "deny", "message": "no rule allows it"}
    print(json.dumps(answer), flush=True)
    print(f"approver: {request['user']}: {request['command']}: {answer['decision']}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
