"""grader: an automated quiz and grading service for learning how a transformer block works."""
