"""The old command `python -m attention.bundled`, kept working: the recipe now lives in
attention/training/copying.py and runs as `python -m attention.training copying`."""

if __name__ == "__main__":
    from attention.training import copying

    copying.main()
