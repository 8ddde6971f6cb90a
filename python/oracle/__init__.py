"""The oracle side of fidelity tests: coreai-opt's ModelInspector and opscope index files
reduced to one canonical, comparable structure (canonical.py)."""
