"""The facts the route-planner plug-in reports (see :mod:`grader.exercises.facts`)."""
from grader.exercises.facts import EVIDENCE, SEARCHED, TAMPERED, Fact

FACTS = (
    Fact('search_order', 'The order states were expanded in (A*, Dijkstra, other), from the '
         'expansions of the public trips.',
         lambda value, facts: f'expansion order: {value}' if value else ''),
    Fact('expansions', 'States expanded over the public efficiency trips.'),
    Fact('expansions_per_trip', 'States expanded on each public efficiency trip.'),
    Fact('expansions_reference_astar', "The reference A*'s expansions on those trips."),
    Fact('expansions_reference_dijkstra', "The reference Dijkstra's expansions on those trips."),
    Fact('expansion_ratio', "Expansions / the reference A*'s."),
    Fact('counted_calls', 'Counted calls of the search on the efficiency trips.'),
    Fact('search_seconds_median', 'Median CPU seconds of a timeouts case (the CityMap '
         'built and the search), measured outside the case process.'),
    Fact('search_seconds_max', 'Largest CPU seconds of a timeouts case, measured '
         'outside the case process.'),
    Fact('search_cpu_per_trip', 'Median CPU seconds of the search per trip, the baseline '
         'taken off.'),
    Fact('search_cpu_floor', 'CPU seconds per trip below which no search ran.'),
    Fact('evidence_status', 'The status of the evidence alone (as in evidence).'),
    EVIDENCE, SEARCHED, TAMPERED,
)
