"""``python -m ordrank.results collect SOURCE [SOURCE ...] -o OUT`` (:func:`ordrank.results.sweeps.main`)."""
import sys

from ordrank.results.sweeps import main

sys.exit(main())
