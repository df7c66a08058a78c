"""Voidrider Chess (Duniho): chess without queens on 43 movable spaces, with the void-riding Voidrider."""
