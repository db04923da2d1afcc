"""What gestalt-nb uses of the LangChain adapter (langchain-gestaltdb) beyond its public API: five functions of its
private modules (and one private function), so that gestalt-nb writes and reads exactly as the adapter does.

- ``normalize``: the adapter's JSON form of engine values (``_serialization.normalize``), as ``query_read_only`` returns;
- ``type_name``: its name for a property's type in the schema (``_schema._type_name``);
- ``entity_id``: a node id as the adapter stores it (``__lc_int__:N`` for an integer; ``_ingestion.entity_id``);
- ``digest``: the hash its ids of sources, mentions and relationships are made of (``_ingestion._digest``);
- ``claim_version``: one claim version as its claim tools return it (``claims._serialize_claim_version``).

The ``GraphDB`` under a ``GestaltDBGraph`` is ``store.adapter_db``. Checked by ``tests/test_engine_contract.py``
against ``SUPPORTED["langchain-gestaltdb"]``.
"""

from __future__ import annotations

from langchain_gestaltdb._ingestion import _digest as digest
from langchain_gestaltdb._ingestion import entity_id
from langchain_gestaltdb._schema import _type_name as type_name
from langchain_gestaltdb._serialization import normalize
from langchain_gestaltdb.claims import _serialize_claim_version as claim_version

__all__ = ["claim_version", "digest", "entity_id", "normalize", "type_name"]
