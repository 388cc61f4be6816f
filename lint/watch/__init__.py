"""``qosforge watch``'s judgement: a running switch's counters against the compiled predictions.

:mod:`~qosforge.lint.watch.expectations` reads what the compiler predicted (a compile output
folder's ``report.json``), :mod:`~qosforge.lint.watch.observation` folds the samples a device
published (:class:`qosforge.backends.counters.Sample`, from ``deliver``'s gNMI client), and
:mod:`~qosforge.lint.watch.rules` turns the two into lint findings (rule ids in the lint registry,
category ``telemetry``; docs/rules.md). Nothing here speaks gNMI: ``cli/watch.py`` composes the
client (``deliver``) and this judgement, as the layering wants (docs/architecture.md §1).
"""
