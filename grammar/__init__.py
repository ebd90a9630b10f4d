"""The spvasm text syntax (spvasm.lark), shipped inside the wheel as spvcoop.grammar."""
