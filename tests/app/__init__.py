"""Tests of the application core (pbem.app) through the worker on real databases."""
