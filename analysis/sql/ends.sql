-- How hands end: re-dealt (everybody declined, no play) and escaped, as rates of all legal hands.
select game, variant, setting, event, hands, k, k / hands as rate, wilson_lo(k, hands) as lo, wilson_hi(k, hands) as hi
from (
    select game, variant, setting, 'redeal' as event, count(*) as hands,
           count(*) filter (where coalesce(redeal, false)) as k
    from legal($game, $variant) group by all
    union all
    select game, variant, setting, 'escape', count(*), count(*) filter (where escape is not null)
    from legal($game, $variant) group by all
)
order by all
