"""Widget views. Each builds on ``View``/``TabbedView`` and draws graphs only through ``gestalt_nb.render``.

``VIEWS`` maps each result type to its view; ``gestalt_nb.display.view_for`` looks results up here,
so results never import their views.
"""

from __future__ import annotations

from typing import Any

from ..claims import ClaimExplanation, ClaimStatus, ClaimTable
from ..graph_schema import SchemaResult
from ..graphrag.answering import Answer
from ..graphrag.extraction import ExtractionResult
from ..memory_result import MemoryResult
from ..live_result import Live
from ..neighbourhood import SubgraphResult
from ..planner import Plan
from ..result import QueryResult
from ..retrieval import Retrieval
from ..subgraph import Subgraph
from ..trace import Trace
from .claim_views import ClaimExplanationView, ClaimStatusView, ClaimTableView
from .graph_view import GraphView
from .graphrag_views import AnswerView, ExtractionView
from .live_view import LiveView
from .plan_view import PlanView
from .result_view import ResultView
from .retrieval_view import RetrievalView
from .schema_view import SchemaView
from .subgraph_view import SubgraphView
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
    # memory answers read like query answers: Graph | Table | JSON | Info, the namespace tree first
    MemoryResult: lambda result, **options: ResultView(result.as_query_result(), **options),
}
