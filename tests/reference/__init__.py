"""Tests for the numpy reference implementations."""
