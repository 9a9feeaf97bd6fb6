function p = randperm(varargin)
% Shim used only by dump_rounds.m: Octave's own randperm, plus a log of the first element
% of every permutation drawn inside RBP.m (RBP.m line 87-88: perm_t=randperm(B); idx=perm_t(1)).
global OKL_TRACE_DRAWS OKL_TRACE_LEARNER
p = builtin('randperm', varargin{:});
s = dbstack();
if numel(s) >= 2 && strcmp(s(2).name, OKL_TRACE_LEARNER)
    OKL_TRACE_DRAWS(end+1, 1) = p(1);
end
end
