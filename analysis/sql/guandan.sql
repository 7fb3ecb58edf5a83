-- Guandan: 双下 rate, the upgrade distribution and the levels played (decided legal hands).
select game, variant, setting, measure, level,
       hands, k, k / hands as rate, wilson_lo(k, hands) as lo, wilson_hi(k, hands) as hi
from (
    select game, variant, setting, 'double_down' as measure, '' as level, count(*) as hands,
           count(*) filter (where double_down) as k
    from legal($game, $variant) where game = 'guandan' and winner is not null group by all
    union all
    select game, variant, setting, 'upgrade', cast(u.upgrade as varchar), any_value(t.total),
           count(*)
    from legal($game, $variant) u
    join (select game, variant, setting, count(*) as total from legal($game, $variant)
          where game = 'guandan' and winner is not null group by all) t using (game, variant, setting)
    where u.game = 'guandan' and u.winner is not null group by all
    union all
    select game, variant, setting, 'level_played', u.level, any_value(t.total), count(*)
    from legal($game, $variant) u
    join (select game, variant, setting, count(*) as total from legal($game, $variant)
          where game = 'guandan' group by all) t using (game, variant, setting)
    where u.game = 'guandan' group by all
)
order by game, variant, setting, measure, level
