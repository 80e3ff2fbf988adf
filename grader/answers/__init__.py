"""Parsing what learners type, tolerance rules and grading of answer parts (pure Python + numpy)."""
