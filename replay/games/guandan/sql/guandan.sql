-- Guandan: 双下 rate, the upgrade distribution, the levels played and the tribute of each
-- hand (decided legal hands). Tribute, as the hand's record has it (the audit checked it
-- against the previous hand of its match): 'double' (two tributes, after a 双下), 'single'
-- (one), 'resisted' (抗贡: a resist act, no tribute), 'none' (the first hand of a match,
-- guandan/no_tribute, or a hand whose previous hand is not known).
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
    union all
    select game, variant, setting, 'tribute', p.kind, any_value(t.total), count(*)
    from (select h.game, h.variant, h.setting, h.hand_id,
                 case when count(a.act) filter (where a.act = 'resist') > 0 then 'resisted'
                      when count(a.act) filter (where a.act = 'tribute') = 2 then 'double'
                      when count(a.act) filter (where a.act = 'tribute') = 1 then 'single'
                      else 'none' end as kind
          from legal($game, $variant) h
          left join actions a on a.hand_id = h.hand_id and a.game = h.game and a.act in ('tribute', 'resist')
          where h.game = 'guandan' group by all) p
    join (select game, variant, setting, count(*) as total from legal($game, $variant)
          where game = 'guandan' group by all) t using (game, variant, setting)
    group by all
)
-- levels in rank order (2 .. 9, T, J, Q, K, A), upgrades by number; not as text (A, J, T after 9)
order by game, variant, setting, measure,
         coalesce(try_cast(level as integer), case level when 'T' then 10 when 'J' then 11 when 'Q' then 12
                                                         when 'K' then 13 when 'A' then 14 end), level
