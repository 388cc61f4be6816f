"""The application layer: one typed request -> result function per thing qosforge does.

``qosforge/cli/`` parses flags into a request, calls the function here and renders its result;
``qosforge/campaigns/`` builds the same requests for each grid point and calls the same functions,
so neither runs the other (docs/architecture.md §1). Nothing here imports click or prints a
result: notes for the person running it go through a :class:`~qosforge.api.reporting.Reporter`.
"""
