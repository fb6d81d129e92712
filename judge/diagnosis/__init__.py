"""Where is the bug: the search down the game tree and the sandboxed probe that asks the
submission."""
