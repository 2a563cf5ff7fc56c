"""``python -m schedc.cli``, as before the CLI became a package (``python -m schedc`` does the same)."""

from schedc.cli import main

if __name__ == "__main__":
    main()
