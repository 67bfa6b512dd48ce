"""Statistics: is a difference between two sets of repeats real, and how large is it?"""
