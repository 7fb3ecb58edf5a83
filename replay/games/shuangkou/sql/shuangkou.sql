-- Shuangkou: the 扣 distribution (双扣 ×3, 单扣 ×2, 平扣 ×1) and stars per seat (decided legal hands).
select game, variant, setting, measure, level,
       hands, k, k / hands as rate, wilson_lo(k, hands) as lo, wilson_hi(k, hands) as hi
from (
    select u.game, u.variant, u.setting, 'kou' as measure, u.kou as level, any_value(t.total) as hands, count(*) as k
    from legal($game, $variant) u
    join (select game, variant, setting, count(*) as total from legal($game, $variant)
          where game = 'shuangkou' and winner is not null group by all) t using (game, variant, setting)
    where u.game = 'shuangkou' and u.winner is not null group by all
    union all
    select u.game, u.variant, u.setting, 'stars_per_hand', cast(s as varchar), any_value(t.total), count(*)
    from (select *, list_sum(stars) as s from legal($game, $variant) where game = 'shuangkou' and winner is not null) u
    join (select game, variant, setting, count(*) as total from legal($game, $variant)
          where game = 'shuangkou' and winner is not null group by all) t using (game, variant, setting)
    group by all
)
-- stars by number (0, 4, 8, 9, 12), not as text (12 before 4)
order by game, variant, setting, measure, try_cast(level as integer), level
