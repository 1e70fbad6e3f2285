#!/usr/bin/env python3
"""plants.py's padding rule on objdump-shaped input: a nop run after a jmp
or ret is padding, but not from a symbol's start on (gcc begins a .cold
landing pad with a nop right after another function's last jmp: simdjson's
numeric_values_exception.cold, planted rightly, was called padding)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plants  # noqa: E402


class Padding(unittest.TestCase):
    INSNS = {0x10: ("call", "call 4460"), 0x15: ("jmp", "jmp 4fdf"), 0x1a: ("nop", "nop"),
             0x1b: ("mov", "mov %rax,%rbp"), 0x1e: ("ret", "ret"), 0x1f: ("nop", "nop"), 0x20: ("push", "push %rbp")}

    def test_nops_after_a_transfer_are_padding(self):
        self.assertEqual(plants.padding(self.INSNS), {0x1a, 0x1f})

    def test_a_symbol_start_is_not_padding(self):
        self.assertEqual(plants.padding(self.INSNS, {0x1a, 0x20}), {0x1f})


if __name__ == "__main__":
    unittest.main()
