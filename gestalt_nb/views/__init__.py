"""Widget views. Each builds on ``View``/``TabbedView`` and draws graphs only through ``gestalt_nb.render``.

Importing this package registers each result type's view in ``gestalt_nb.display.VIEWS``, where
``display.view_for`` looks results up, so results never import their views.
"""

from __future__ import annotations

from typing import Any

from .. import display
from ..agents.planner import Plan
from ..agents.trace import Trace
from ..claims.api import ClaimExplanation, ClaimStatus, ClaimTable
from ..cypher.result import QueryResult
from ..feed.live import Live
from ..graph.neighbourhood import SubgraphResult
from ..graph.retrieval import Retrieval
from ..graph.schema import SchemaResult
from ..graph.subgraph import Subgraph
from ..graphrag.answering import Answer
from ..graphrag.writing import ExtractionResult
from ..grouped.result import OverviewResult
from ..memory.result import MemoryResult
from ..temporal.diff import DiffResult
from ..temporal.timeline import TimelineResult
from .claim_views import ClaimExplanationView, ClaimStatusView, ClaimTableView
from .diff_view import DiffView
from .graph_view import GraphView
from .graphrag_views import AnswerView, ExtractionView
from .live_view import LiveView
from .overview_view import OverviewView
from .plan_view import PlanView
from .result_view import ResultView
from .retrieval_view import RetrievalView
from .schema_view import SchemaView
from .subgraph_view import SubgraphView
from .timeline_view import TimelineView
from .trace_view import TraceView

VIEWS: dict[type, Any] = {
    QueryResult: ResultView,
    SchemaResult: SchemaView,
    Retrieval: RetrievalView,
    ClaimStatus: ClaimStatusView,
    ClaimTable: ClaimTableView,
    ClaimExplanation: ClaimExplanationView,
    Trace: TraceView,
    SubgraphResult: SubgraphView,
    Live: LiveView,
    Plan: PlanView,
    Subgraph: GraphView,
    Answer: AnswerView,
    ExtractionResult: ExtractionView,
    OverviewResult: OverviewView,
    DiffResult: DiffView,
    TimelineResult: TimelineView,
    # memory answers read like query answers: Graph | Table | JSON | Info, the namespace tree first
    MemoryResult: lambda result, **options: ResultView(result.as_query_result(), **options),
}
display.VIEWS.update(VIEWS)
