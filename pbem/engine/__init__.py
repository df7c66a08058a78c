"""Pure rules machinery shared by every variant.

``base`` holds the Variant protocol, its values and the VariantBase template;
``errors`` the move errors; ``secret`` the Secret value; ``capabilities`` the
optional protocols (fast perft, secret keeping, record export); ``notation`` and
``geometry`` the helpers every variant's notation and move tables share.
Import from those modules: this package imports nothing.
"""
