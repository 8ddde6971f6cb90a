"""opscope's export helper: turns a user's Python model into a torch.export `.pt2` archive.

It is the only opscope code that runs user Python, and it runs only when the user asks
(`opscope export`, or a project file that says to export). See `__main__.py` for the CLI.
"""

MIN_TORCH = (2, 4)
