"""``python -m schedc``: the ``schedc`` command line."""

from schedc.cli import main

if __name__ == "__main__":
    main()
