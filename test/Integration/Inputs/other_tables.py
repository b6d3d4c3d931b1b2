"""Rewrites a lowered program as if it were compiled with other runtime
tables: the fingerprint hdrt_init receives (its last operand) changes.

  usage: other_tables.py IN.mlir OUT.mlir
"""
import re
import sys

text = open(sys.argv[1]).read()
call = re.search(r"call @hdrt_init\(.*, (%c-?\d+_i64)\)", text)
if not call:
    sys.exit("no hdrt_init call with a constant fingerprint")
name = call.group(1)
value = int(re.search(re.escape(name) + r" = arith.constant (-?\d+) : i64",
                      text).group(1))
# A fresh constant, so that no other operand sharing the old one changes.
text = text.replace(f"{name})", "%other_tables)", 1)
text = text.replace(f"{name} = arith.constant {value} : i64",
                    f"{name} = arith.constant {value} : i64\n"
                    f"    %other_tables = arith.constant {value ^ 1} : i64", 1)
open(sys.argv[2], "w").write(text)
