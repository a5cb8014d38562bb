"""Analyses over tile IR: axis info (contiguity, divisibility, constancy),
kernel parameter facts, and the facts behind mask elision and vector widths."""

from .axis_info import AxisInfo, AxisInfoAnalysis, pointer_alignment_facts  # noqa: F401
