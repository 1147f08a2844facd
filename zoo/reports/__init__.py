"""HTML reports of ``zoo check`` and ``zoo validate``, built on :mod:`zoo.reports.html`."""
