-- placings: the placings view's rows for placings.csv, in the event's order.
SELECT stage, place, entrant, how FROM placings
