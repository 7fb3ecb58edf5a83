-- Paodekuai: hands with a let-go (放走), hands where the let-go seat paid (包赔), hands with 喜钱.
select game, variant, setting, event,
       hands, k, k / hands as rate, wilson_lo(k, hands) as lo, wilson_hi(k, hands) as hi
from (
    select game, variant, setting, 'let_go' as event, count(*) as hands,
           count(*) filter (where let_goes > 0) as k
    from legal($game, $variant) where game = 'paodekuai' group by all
    union all
    select game, variant, setting, 'let_go_paid', count(*), count(*) filter (where let_go is not null)
    from legal($game, $variant) where game = 'paodekuai' group by all
    union all
    select game, variant, setting, 'xiqian', count(*), count(*) filter (where xiqian_bombs > 0)
    from legal($game, $variant) where game = 'paodekuai' group by all
)
order by all
