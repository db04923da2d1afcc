"""The prompts GraphRAG sends, as module constants: read them, or replace them.

``extract(..., prompt=...)`` and ``answer(..., prompt=..., names_prompt=...)`` override them per
call; assigning ``gestalt_nb.graphrag.prompts.EXTRACTION_PROMPT = "..."`` changes the default (each
call reads the constant when it runs). Placeholders are filled with ``str.format``.
"""

#: Placeholders: {types} (what is allowed, or "any"), {examples}, {text}.
EXTRACTION_PROMPT = (
    "Extract a knowledge graph from the text below. Return every entity as a node (id = its name exactly as "
    "written in the text, type = what kind of thing it is) and every relationship the text states between two "
    "of those nodes (source_id and target_id are node ids; type in UPPER_SNAKE_CASE, e.g. WORKS_AT). "
    "Use only facts stated in the text. Answer with the ExtractedGraph structure.\n"
    "{types}{examples}\nText:\n{text}"
)

#: Placeholder: {question}.
NAMES_PROMPT = (
    "List the names of the entities (people, organisations, places, products, ...) that this question is about, "
    "exactly as written in the question. Answer with the EntityNames structure.\nQuestion: {question}"
)

#: Placeholders: {question}, {context}.
ANSWER_PROMPT = (
    "Answer the question using only the knowledge-graph context below (entities, relationships and the source "
    "passages they came from). Say how you reached the answer (which relationships connect the entities). "
    "If the context does not answer the question, say so.\n\nContext:\n{context}\n\nQuestion: {question}"
)
