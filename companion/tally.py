"""Blueprint: the end of the night — tally, history, statistics, export (to be built)."""

from flask import Blueprint

bp = Blueprint("tally", __name__)
