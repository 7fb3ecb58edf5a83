-- Feeding per ordered pair, sitting and place: the pair's chances and take-overs in each
-- sitting they shared, for the cluster-level test (a match's course moves every lead of
-- it together, so the sittings, not the leads, are the independent units).
select game, variant, a, b, c, place, count(*) as n, count(*) filter (where taken) as k
from feed_chances
group by all
order by game, variant, a, b, c, place
