function varargout = randn(varargin)
% Shim used only by dump_rounds.m: Octave's own randn, rounded to multiples of 1/1024 when
% called from FouGD.m (FouGD.m line 34: u = (1/sigma)*randn(d, D)), so that the draws are
% stored exactly as int16 (k/1024) in a small fixture.  The rounding changes the draws by at
% most 2^-11 (a slightly discretised N(0,1)); FouGD.m's code path is unchanged.
global OKL_TRACE_GAUSS OKL_TRACE_LEARNER
if nargin >= 1 && ischar(varargin{1})      % randn('state', ...): set or query the state
    [varargout{1:nargout}] = builtin('randn', varargin{:});
    return
end
r = builtin('randn', varargin{:});
varargout{1} = r;
s = dbstack();
if numel(s) >= 2 && strcmp(s(2).name, OKL_TRACE_LEARNER)
    r = round(r * 1024) / 1024;
    OKL_TRACE_GAUSS = r;
    varargout{1} = r;
end
end
