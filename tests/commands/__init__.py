"""Tests of the email commands through the worker."""
