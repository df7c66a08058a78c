"""Tests of storage: migrations."""
