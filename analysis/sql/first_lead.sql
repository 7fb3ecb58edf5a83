-- How often the seat that led the first trick wins the hand (decided legal hands).
select game, variant, setting,
       count(*) as hands,
       count(*) filter (where winner = first_leader) as wins,
       wins / hands as rate,
       wilson_lo(wins, hands) as lo,
       wilson_hi(wins, hands) as hi
from legal($game, $variant)
where winner is not null and first_leader is not null
group by all
order by all
