"""Code exercises: learners write numpy functions that the sandbox runs and this package grades."""
