-- Macros every statistic may use. 95% Wilson score interval of k successes in n trials.
create or replace macro wilson_lo(k, n) as
    case when n = 0 then null when k = 0 then 0.0
         else greatest(0.0, ((k / n) + 1.96 * 1.96 / (2 * n)
               - 1.96 * sqrt((k / n) * (1 - k / n) / n + 1.96 * 1.96 / (4 * n * n))) / (1 + 1.96 * 1.96 / n)) end;
create or replace macro wilson_hi(k, n) as
    case when n = 0 then null when k = n then 1.0
         else least(1.0, ((k / n) + 1.96 * 1.96 / (2 * n)
               + 1.96 * sqrt((k / n) * (1 - k / n) / n + 1.96 * 1.96 / (4 * n * n))) / (1 + 1.96 * 1.96 / n)) end;
