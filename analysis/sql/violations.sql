-- Violating hands by verdict code (they are kept out of every other statistic).
select game, variant, code, count(*) as hands
from verdicts
where not ok and ($game is null or game = $game) and ($variant is null or variant = $variant)
group by all
order by game, variant, hands desc, code
