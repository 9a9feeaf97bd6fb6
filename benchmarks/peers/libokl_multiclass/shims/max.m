function varargout = max(varargin)
% Shim used only by dump_rounds.m: Octave's own max, plus a log of the score vector V of
% every prediction `[V_max, idx_max] = max(V)` made inside one of LIBOKL's learners (the
% call with two outputs on a K-vector; the K-1-vector calls for the best wrong class are
% not logged).  Outputs are exactly those of the built-in.
global OKL_TRACE_K OKL_TRACE_SCORES OKL_TRACE_LEARNER
nout = builtin('max', nargout, 1);
[varargout{1:nout}] = builtin('max', varargin{:});
if nargin == 1 && nargout == 2 && ~isempty(OKL_TRACE_K) && numel(varargin{1}) == OKL_TRACE_K
    s = dbstack();
    if numel(s) >= 2 && strcmp(s(2).name, OKL_TRACE_LEARNER)
        OKL_TRACE_SCORES(end+1, :) = varargin{1}(:)';
    end
end
end
