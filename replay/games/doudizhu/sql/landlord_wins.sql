-- Landlord win rate, overall, by number of grabs and by show factor (Dou Dizhu, decided hands).
with decided as (
    select *, (winning_side = 'landlord')::int as won
    from legal($game, $variant) where game = 'doudizhu' and winner is not null and landlord is not null
)
select game, variant, setting, 'all' as breakdown, 'all' as level,
       count(*) as hands, sum(won) as wins, wins / hands as rate, wilson_lo(wins, hands) as lo, wilson_hi(wins, hands) as hi
from decided group by all
union all
select game, variant, setting, 'grabs', cast(grabs as varchar),
       count(*), sum(won), sum(won) / count(*), wilson_lo(sum(won), count(*)), wilson_hi(sum(won), count(*))
from decided group by all
union all
select game, variant, setting, 'show', cast(show_factor as varchar),
       count(*), sum(won), sum(won) / count(*), wilson_lo(sum(won), count(*)), wilson_hi(sum(won), count(*))
from decided group by all
order by game, variant, setting, breakdown, level
