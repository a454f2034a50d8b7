export { rpc, jetStream, WDS_EXTRAS, type RpcAnswer } from './patterns';
export { WdsRpcContext, JetStreamContext } from './context';
export { planBindings, settle, BindingError, type Binding } from './bindings';
export { RethrowRpcExceptionFilter } from './exception-filter';
export { WdsTransportServer, type WdsTransportOptions } from './server';
export { WdsClientProxy, WdsRecord } from './client';
export { connectWdsTransport } from './connect';
