-- Card sharing per ordered pair (a acted for b) and kind of decision: chances and hits.
select game, variant, a, b, sig, stratum, count(*) as n, count(*) filter (where hit) as k
from share_chances
group by all
order by all
