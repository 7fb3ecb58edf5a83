-- The toy game's winning margin (the points the first seat out takes: the cards the other
-- seat still holds) over decided legal hands: each margin's share ('margin', by margin) and
-- the share won by 5 cards or more ('big'), with 95% intervals.
with decided as (
    select game, variant, setting, cast(list_max(scores) as integer) as margin
    from legal($game, $variant) where game = 'toy' and winner is not null
)
select game, variant, setting, measure, margin, hands, k, k / hands as rate,
       wilson_lo(k, hands) as lo, wilson_hi(k, hands) as hi
from (
    select game, variant, setting, 'margin' as measure, margin, count(*) as k,
           sum(count(*)) over (partition by game, variant, setting) as hands
    from decided group by game, variant, setting, margin
    union all
    select game, variant, setting, 'big', null, count(*) filter (where margin >= 5), count(*)
    from decided group by game, variant, setting
)
order by all
