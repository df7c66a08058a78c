"""Tests of pbem.engine: values shared by every variant."""
