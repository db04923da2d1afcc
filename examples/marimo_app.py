"""gestalt-nb in marimo: the graph canvas in a reactive app.

    pip install "gestalt-nb" marimo
    marimo run examples/marimo_app.py      # or: marimo edit examples/marimo_app.py

Click a node: the cell below the canvas re-runs with the selection. Double-click a node: its
neighbours are read from the database and drawn (both directions). See docs/guide/frontends.md.
"""

import marimo

__generated_with = "0.25.2"
app = marimo.App(width="medium")


@app.cell
def _():
    import marimo as mo

    import gestalt_nb

    return gestalt_nb, mo


@app.cell
def _(gestalt_nb):
    gestalt_nb.demo()  # the bundled demo graph (built once in a temp dir); gestalt_nb.connect(path) opens yours
    people = gestalt_nb.run("MATCH (p:Person)-[r:KNOWS]->(q:Person) RETURN p, r, q")
    return (people,)


@app.cell
def _(mo, people):
    # mo.ui.anywidget makes the canvas a marimo UI element: cells that read canvas.value re-run on a click
    canvas = mo.ui.anywidget(people.canvas)
    canvas
    return (canvas,)


@app.cell
def _(canvas, gestalt_nb, mo):
    selected = canvas.value.get("selected", [])
    picked = gestalt_nb.run("MATCH (n) WHERE id(n) IN $ids RETURN n", {"ids": selected}) if selected else None
    mo.md(f"**Selected:** {', '.join(map(str, selected)) or 'nothing yet: click a node'}"
          + (f" — {', '.join(str(n.properties.get('name', n.id)) for n in picked.subgraph.nodes.values())}" if picked else ""))
    return


@app.cell
def _(gestalt_nb):
    # any result (or gestalt_nb.show(result)) shows as its canvas with a text summary below
    gestalt_nb.show(gestalt_nb.run("MATCH (p:Person)-[r:WORKS_FOR]->(c:Company) RETURN p, r, c"))
    return


if __name__ == "__main__":
    app.run()
