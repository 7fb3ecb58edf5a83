-- Spring and anti-spring rates among decided Dou Dizhu hands.
select game, variant, setting, kind,
       hands, k, k / hands as rate, wilson_lo(k, hands) as lo, wilson_hi(k, hands) as hi
from (
    select game, variant, setting, 'spring' as kind, count(*) as hands,
           count(*) filter (where spring_kind = 'spring') as k
    from legal($game, $variant) where game = 'doudizhu' and winner is not null group by all
    union all
    select game, variant, setting, 'anti_spring', count(*), count(*) filter (where spring_kind = 'anti_spring')
    from legal($game, $variant) where game = 'doudizhu' and winner is not null group by all
)
order by all
