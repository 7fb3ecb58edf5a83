-- Hands per game, variant and rule setting: all, legal, violating.
select game, variant, coalesce(params, '') as setting,
       count(*) as hands,
       count(*) filter (where ok) as legal,
       count(*) filter (where not ok) as violating
from outcomes
where ($game is null or game = $game) and ($variant is null or variant = $variant)
group by all
order by all
